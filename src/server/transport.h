#pragma once
// Bytes in and out of one client connection, with deadlines. The protocol code talks to this interface rather than
// to a socket so that tests and the fuzzer can drive a whole connection from memory.
#include <chrono>
#include <cstddef>
#include <string_view>

#include "common/status.h"

namespace sluice::server {

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

class Transport {
 public:
  virtual ~Transport() = default;
  // Reads between 1 and `capacity` bytes. Fails with kUnavailable when the peer closed the connection,
  // kTimeout when nothing arrived before `deadline`, kIoError on any other failure.
  virtual Result<size_t> Read(char* buffer, size_t capacity, Deadline deadline) = 0;
  // Writes all of `data` or fails (kTimeout when the peer stopped reading, kIoError when it went away).
  virtual Status Write(std::string_view data, Deadline deadline) = 0;
};

// A non-blocking TCP socket. Does not own the descriptor: the server closes it, so that Stop() can shut down a
// descriptor without racing against its reuse.
class SocketTransport final : public Transport {
 public:
  explicit SocketTransport(int fd) : fd_(fd) {}
  Result<size_t> Read(char* buffer, size_t capacity, Deadline deadline) override;
  Status Write(std::string_view data, Deadline deadline) override;

 private:
  // Waits until the socket is readable (POLLIN) or writable (POLLOUT), or the deadline passes.
  Status Wait(short events, Deadline deadline);
  int fd_;
};

}  // namespace sluice::server
