#pragma once

#include <signal.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "command_handler.h"

namespace testbroker {

// Reads command lines from stdin and from TCP clients of the control port, runs them
// through the CommandHandler and answers each with one line, until told to stop.
// Single-threaded: one ppoll() loop over every input, so commands never interleave.
class CommandLoop {
 public:
  explicit CommandLoop(CommandHandler& handler) : handler_(handler) {}
  ~CommandLoop();
  CommandLoop(const CommandLoop&) = delete;
  CommandLoop& operator=(const CommandLoop&) = delete;

  // Blocks SIGINT/SIGTERM in the calling thread. Call it before any thread is started so
  // that every thread inherits the mask and the signals only wake Run()'s ppoll().
  static void BlockStopSignals();

  // Listens on 127.0.0.1:port (0 = any free port). Returns the bound port, or -1 and `error`.
  int Listen(int port, std::string& error);

  // Also take commands from stdin; if `eof_stops`, stdin's end stops the loop (an
  // interactive session or a pipe that owns the broker), otherwise it just stops reading.
  void ReadStdin(bool eof_stops) {
    read_stdin_ = true;
    stdin_eof_stops_ = eof_stops;
  }

  // Serves until `quit`, a stop signal or (see ReadStdin) stdin EOF. Returns the reason.
  std::string Run();

 private:
  // One source of command lines: stdin (answers go to stdout) or a control client.
  struct Input {
    explicit Input(int input_fd) : fd(input_fd) {}
    int fd;
    std::string pending;    // bytes received after the last newline
    bool skipping = false;  // dropping the rest of an over-long line
  };

  // Runs every complete line in `in.pending` and answers it. Returns false on `quit`.
  bool RunLines(Input& in, bool at_eof);
  void AcceptClient();
  static void Send(int fd, const std::string& line);

  CommandHandler& handler_;
  int listen_fd_ = -1;
  bool read_stdin_ = false;
  bool stdin_eof_stops_ = false;
  Input stdin_{STDIN_FILENO};
  std::vector<Input> clients_;
};

}  // namespace testbroker
