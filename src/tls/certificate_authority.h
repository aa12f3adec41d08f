#pragma once
// A certificate authority of Sluice's own, kept in the data directory, for servers started without --tls-cert:
// clients that want to check whom they talk to pass its certificate (`mariadb --ssl-verify-server-cert
// --ssl-ca=<data dir>/tls/ca.pem`), and the server certificate it signs is valid for the names clients connect to.
#include <string>
#include <vector>

#include "common/status.h"

namespace sluice::tls {

// The files of a generated setup, all under <data dir>/tls/. Keys are mode 0600; certificates 0644.
struct GeneratedTlsFiles {
  std::string dir;
  std::string ca_cert;      // ca.pem: what clients trust
  std::string ca_key;       // ca-key.pem: signs a new server certificate when the hosts change
  std::string server_cert;  // server-cert.pem
  std::string server_key;   // server-key.pem
};

// Makes sure <data_dir>/tls/ holds a CA and a server certificate signed by it that covers `hosts` (IP addresses
// or DNS names). Files from an earlier start are reused, so clients keep trusting the same ca.pem. The server
// certificate alone is issued again (by the same CA) when it does not cover a host or expires within 30 days;
// the CA is made again only when its files are missing, broken or about to expire.
Result<GeneratedTlsFiles> EnsureGeneratedCertificates(const std::string& data_dir,
                                                      const std::vector<std::string>& hosts);

}  // namespace sluice::tls
