#include "tls/openssl_error.h"

#include <openssl/err.h>

namespace sluice::tls {

std::string OpenSslError(std::string_view what) {
  std::string out(what);
  bool first = true;
  while (unsigned long code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    out += first ? ": " : "; ";
    out += buf;
    first = false;
  }
  return out;
}

void ClearOpenSslErrors() { ERR_clear_error(); }

}  // namespace sluice::tls
