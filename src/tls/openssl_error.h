#pragma once
// OpenSSL reports failures on a per-thread error queue; this turns the queue into text for a Status message.
#include <string>
#include <string_view>

namespace sluice::tls {

// "<what>: <OpenSSL's reasons>", and empties the thread's error queue (so a later failure reports only its own).
std::string OpenSslError(std::string_view what);

// Empties the thread's error queue without reporting it.
void ClearOpenSslErrors();

}  // namespace sluice::tls
