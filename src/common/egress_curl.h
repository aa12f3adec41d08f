#pragma once
// The egress allow list (egress_policy.h) on a libcurl handle: every socket curl opens is checked against the
// address it is for, after curl resolved the name, so a host that resolves to an address outside the list is not
// connected to ("Failed to connect ... Couldn't connect to server"). Header-only: only code that links libcurl
// includes it.
#include <curl/curl.h>
#include <sys/socket.h>

#include <string>

#include "common/egress_policy.h"
#include "common/log.h"

namespace sluice::egress {

// `host` is the name the URL connects to; it must outlive the handle's transfers.
inline void GuardCurlEgress(CURL* curl, const std::string* host) {
  if (CurrentEgressPolicy().unrestricted()) return;
  auto open = [](void* clientp, curlsocktype purpose, curl_sockaddr* address) -> curl_socket_t {
    const auto* name = static_cast<const std::string*>(clientp);
    if (purpose != CURLSOCKTYPE_IPCXN ||
        !CurrentEgressPolicy().AllowsConnection(*name, reinterpret_cast<const sockaddr*>(&address->addr))) {
      log::Warn("egress", "refused a connection to {}: not in --allow-egress", *name);
      return CURL_SOCKET_BAD;
    }
    return ::socket(address->family, address->socktype, address->protocol);
  };
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, static_cast<curl_opensocket_callback>(open));
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, const_cast<std::string*>(host));
  // Redirects would reach hosts the statement never named.
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
}

}  // namespace sluice::egress
