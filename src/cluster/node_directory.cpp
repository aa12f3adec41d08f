#include "cluster/node_directory.h"

#include <unistd.h>

#include <climits>
#include <ctime>

namespace sluice::cluster {

Result<std::vector<NodeRow>> LocalNodeDirectory::ListNodes() {
  NodeRow row;
  row.name = identity_.name;
  row.address = identity_.address;
  row.state = "alive";
  row.last_heartbeat = FormatUtc(std::chrono::system_clock::now());  // answering is as alive as it gets
  row.started_at = FormatUtc(started_at_);
  row.version = identity_.version;
  return std::vector<NodeRow>{row};
}

Status LocalNodeDirectory::SetDecommissioned(const std::string&, bool) {
  return Status::NotSupported("this server is not a cluster node (sluice serve --cluster): there is no node to "
                              "decommission; stop the server instead");
}

Status LocalNodeDirectory::DropNode(const std::string&) {
  return Status::NotSupported("this server is not a cluster node (sluice serve --cluster): there is no node to "
                              "drop");
}

namespace {

std::string Hostname() {
  char buf[HOST_NAME_MAX + 1] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace

std::string DefaultNodeName(uint16_t mysql_port) { return Hostname() + ":" + std::to_string(mysql_port); }

std::string DefaultAdvertiseAddress(const std::string& bind, uint16_t mysql_port) {
  std::string host = bind == "0.0.0.0" || bind == "::" || bind.empty() ? Hostname() : bind;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // an IPv6 address
  return host + ":" + std::to_string(mysql_port);
}

Status CheckNodeName(const std::string& name) {
  if (name.empty() || name.size() > 200)
    return Status::InvalidArgument("--node-name must be 1 to 200 characters (each node of a cluster needs its own)");
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return Status::InvalidArgument("--node-name may not contain control characters");
  return Status::Ok();
}

std::string FormatUtc(std::chrono::system_clock::time_point t) {
  std::time_t s = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

}  // namespace sluice::cluster
