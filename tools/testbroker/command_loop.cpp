#include "command_loop.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "loopback_listener.h"

namespace testbroker {

namespace {

volatile sig_atomic_t g_stop_signal = 0;
sigset_t g_original_mask;

void OnStopSignal(int sig) { g_stop_signal = sig; }

// A line longer than this is not a command; refuse it instead of buffering without end.
constexpr size_t kMaxLine = 64 * 1024;

}  // namespace

void CommandLoop::BlockStopSignals() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A control client that hangs up early must not kill the broker; send() reports EPIPE.
  signal(SIGPIPE, SIG_IGN);

  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &g_original_mask);
}

CommandLoop::~CommandLoop() {
  for (auto& client : clients_) close(client.fd);
  if (listen_fd_ >= 0) close(listen_fd_);
}

int CommandLoop::Listen(int port, std::string& error) {
  int bound_port = -1;
  listen_fd_ = ListenOnLoopback(port, bound_port, error);
  return listen_fd_ < 0 ? -1 : bound_port;
}

void CommandLoop::Send(int fd, const std::string& line) {
  std::string out = line + "\n";
  if (fd == STDIN_FILENO) {
    // Answers to stdin commands go to stdout, flushed so a reading test sees them at once.
    std::fputs(out.c_str(), stdout);
    std::fflush(stdout);
    return;
  }
  // Blocking send: replies are tiny and the client is waiting for them.
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // client gone; its EOF is noticed by the next poll
    done += static_cast<size_t>(n);
  }
}

bool CommandLoop::RunLines(Input& in, bool at_eof) {
  auto run = [&](const std::string& line) {
    Reply reply = handler_.Run(line);
    if (!reply.line.empty()) Send(in.fd, reply.line);
    return !reply.quit;
  };
  size_t start = 0;
  for (size_t nl; (nl = in.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (in.skipping) {  // the tail of a line already refused as too long
      in.skipping = false;
      continue;
    }
    if (!run(in.pending.substr(start, nl - start))) return false;
  }
  in.pending.erase(0, start);
  if (in.pending.size() > kMaxLine) {
    if (!in.skipping) Send(in.fd, "ERR line too long");
    in.skipping = true;
    in.pending.clear();
  }
  if (at_eof && !in.pending.empty() && !in.skipping) {  // a last line without its newline still counts
    std::string last = std::move(in.pending);
    in.pending.clear();
    if (!run(last)) return false;
  }
  return true;
}

void CommandLoop::AcceptClient() {
  int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd >= 0) clients_.emplace_back(fd);
}

std::string CommandLoop::Run() {
  sigset_t wait_mask = g_original_mask;
  sigdelset(&wait_mask, SIGINT);
  sigdelset(&wait_mask, SIGTERM);

  char buf[4096];
  for (;;) {
    // Slot 0 is stdin (fd -1 once closed, which poll ignores), slot 1 the listener, then clients.
    std::vector<pollfd> fds;
    fds.push_back({read_stdin_ ? STDIN_FILENO : -1, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const auto& client : clients_) fds.push_back({client.fd, POLLIN, 0});

    if (!read_stdin_ && listen_fd_ < 0 && g_stop_signal == 0) {
      // Nothing to read: just wait for a signal.
      sigsuspend(&wait_mask);
    } else if (ppoll(fds.data(), fds.size(), nullptr, &wait_mask) < 0 && errno != EINTR) {
      return std::string("poll failed: ") + std::strerror(errno);
    }
    if (g_stop_signal != 0) return std::string("signal ") + strsignal(g_stop_signal);

    if (fds[0].revents != 0) {
      ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      bool eof = n <= 0;
      if (!eof) stdin_.pending.append(buf, static_cast<size_t>(n));
      if (!RunLines(stdin_, eof)) return "quit";
      if (eof) {
        read_stdin_ = false;
        if (stdin_eof_stops_) return "end of stdin";
      }
    }
    if (fds[1].revents != 0) AcceptClient();
    // Clients accepted just now are not in `fds` yet; they are polled next round.
    for (size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      Input& client = clients_[i - 2];
      ssize_t n = recv(client.fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      bool eof = n <= 0;
      if (!eof) client.pending.append(buf, static_cast<size_t>(n));
      if (!RunLines(client, eof)) return "quit";
      if (eof) {
        close(client.fd);
        client.fd = -1;
      }
    }
    std::erase_if(clients_, [](const Input& c) { return c.fd < 0; });
  }
}

}  // namespace testbroker
