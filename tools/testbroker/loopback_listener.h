#pragma once

#include <string>

namespace testbroker {

// Opens a listening TCP socket on 127.0.0.1:port (0 = any free port), close-on-exec and
// with SO_REUSEADDR. Returns the fd and sets `bound_port`, or returns -1 and sets `error`.
int ListenOnLoopback(int port, int& bound_port, std::string& error);

}  // namespace testbroker
