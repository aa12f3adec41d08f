# cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=name -P embed_asset.cmake
# Writes `extern const std::string_view kAsset_<SYMBOL>` holding the file's bytes as a raw string literal. The
# delimiter is one no asset contains (checked here), so the file needs no escaping.
file(READ ${INPUT} content)
set(delimiter "sluice_asset")
string(FIND "${content}" ")${delimiter}" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains ')${delimiter}', which would end the raw string literal")
endif()
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by embed_asset.cmake; edit the asset, not this file.\n"
                     "#include <string_view>\n"
                     "namespace sluice::dashboard {\n"
                     "extern const std::string_view kAsset_${SYMBOL};\n"
                     "const std::string_view kAsset_${SYMBOL} = R\"${delimiter}(${content})${delimiter}\";\n"
                     "}  // namespace sluice::dashboard\n")
