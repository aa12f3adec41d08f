#include "common/secret_redaction.h"

#include <cctype>
#include <vector>

#include "common/secret_names.h"

namespace sluice {

namespace {

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '$';
}

bool EqualsWord(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// `scheme://user:secret@` -> `scheme://******@`, anywhere in `s`.
std::string MaskUrlCredentials(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t sep = s.find("://", i);
    if (sep == std::string::npos) break;
    size_t scheme = sep;
    while (scheme > i && (std::isalnum(static_cast<unsigned char>(s[scheme - 1])) || s[scheme - 1] == '+' ||
                          s[scheme - 1] == '.' || s[scheme - 1] == '-'))
      scheme--;
    size_t host = sep + 3;
    size_t end = host;
    bool colon = false;
    while (end < s.size() && s[end] != '/' && s[end] != '@' && !std::isspace(static_cast<unsigned char>(s[end])) &&
           s[end] != '"' && s[end] != '\'') {
      if (s[end] == ':') colon = true;
      end++;
    }
    if (scheme < sep && colon && end < s.size() && s[end] == '@' && end > host) {
      out.append(s, i, host - i);
      out += kSecretMask;
      i = end;  // keeps the '@'
    } else {
      out.append(s, i, host - i);
      i = host;
    }
  }
  out.append(s, i, std::string::npos);
  return out;
}

// key=value, key = "value", key='value' inside `s` where key is a secret name: the value becomes ******. An unquoted
// value ends at whitespace, '&', ';', ',', ')' or a quote.
std::string MaskInlineAssignments(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    if (!IsNameChar(s[i]) || (i > 0 && IsNameChar(s[i - 1]))) {
      out += s[i++];
      continue;
    }
    size_t name_end = i;
    while (name_end < s.size() && IsNameChar(s[name_end])) name_end++;
    std::string_view name(s.data() + i, name_end - i);
    size_t j = name_end;
    while (j < s.size() && s[j] == ' ') j++;
    if (j >= s.size() || s[j] != '=' || !IsSecretName(name)) {
      out.append(s, i, name_end - i);
      i = name_end;
      continue;
    }
    j++;  // past '='
    size_t v = j;
    while (v < s.size() && s[v] == ' ') v++;
    size_t value_start = v, value_end = v;
    bool escaped_quote = v + 1 < s.size() && s[v] == '\\' && (s[v + 1] == '"' || s[v + 1] == '\'');
    if (v < s.size() && (s[v] == '"' || s[v] == '\'' || escaped_quote)) {
      // A quoted value (JAAS: password="p"; inside a SQL string the quote may be escaped: password=\"p\").
      std::string close = escaped_quote ? std::string("\\") + s[v + 1] : std::string(1, s[v]);
      value_start = v + close.size();
      size_t c = s.find(close, value_start);
      value_end = c == std::string::npos ? s.size() : c;
    } else {
      while (value_end < s.size() && !std::isspace(static_cast<unsigned char>(s[value_end])) &&
             s[value_end] != '&' && s[value_end] != ';' && s[value_end] != ',' && s[value_end] != ')' &&
             s[value_end] != '"' && s[value_end] != '\'' && s[value_end] != '\\')
        value_end++;
    }
    out.append(s, i, value_start - i);
    if (value_end > value_start) out += kSecretMask;
    i = value_end;
  }
  return out;
}

std::string MaskInside(const std::string& s) { return MaskInlineAssignments(MaskUrlCredentials(s)); }

struct Segment {
  bool quoted = false;
  char quote = 0;
  std::string body;  // without the quotes, escapes kept as written
  bool closed = true;
};

// Splits text into unquoted runs and '...' / "..." / `...` strings (doubled quotes and backslash escapes stay
// inside the string).
std::vector<Segment> Split(std::string_view text) {
  std::vector<Segment> out;
  Segment cur;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c != '\'' && c != '"' && c != '`') {
      cur.body += c;
      i++;
      continue;
    }
    if (!cur.body.empty()) out.push_back(std::move(cur));
    cur = Segment{};
    Segment q;
    q.quoted = true;
    q.quote = c;
    q.closed = false;
    i++;
    while (i < text.size()) {
      if (text[i] == '\\' && i + 1 < text.size()) {
        q.body += text[i];
        q.body += text[i + 1];
        i += 2;
      } else if (text[i] == c && i + 1 < text.size() && text[i + 1] == c) {
        q.body += c;
        q.body += c;
        i += 2;
      } else if (text[i] == c) {
        q.closed = true;
        i++;
        break;
      } else {
        q.body += text[i++];
      }
    }
    out.push_back(std::move(q));
  }
  if (!cur.body.empty()) out.push_back(std::move(cur));
  return out;
}

// The words (names) at the end of an unquoted run, last first.
std::vector<std::string_view> TrailingWords(std::string_view run, size_t max) {
  std::vector<std::string_view> words;
  size_t end = run.size();
  while (words.size() < max) {
    while (end > 0 && std::isspace(static_cast<unsigned char>(run[end - 1]))) end--;
    size_t start = end;
    while (start > 0 && IsNameChar(run[start - 1])) start--;
    if (start == end) break;
    words.push_back(run.substr(start, end - start));
    end = start;
  }
  return words;
}

// Whether the string that follows `run` is a secret's value, given the string before `run` (if any) named a secret.
bool ValueFollows(std::string_view run, bool previous_string_names_secret) {
  size_t end = run.size();
  while (end > 0 && std::isspace(static_cast<unsigned char>(run[end - 1]))) end--;
  char sep = end > 0 ? run[end - 1] : 0;
  bool had_sep = sep == '=' || sep == ':' || sep == ',' || sep == '(';
  std::string_view head = had_sep ? run.substr(0, end - 1) : run.substr(0, end);
  size_t h = head.size();
  while (h > 0 && std::isspace(static_cast<unsigned char>(head[h - 1]))) h--;
  if (h == 0) {
    // 'key' = 'value', 'key': 'value', map('key', 'value'): the key is the string just before.
    return previous_string_names_secret && (sep == '=' || sep == ':' || sep == ',');
  }
  if (sep == ',' || sep == ':') return false;  // SELECT secret, 'x'
  std::vector<std::string_view> words = TrailingWords(head.substr(0, h), 4);
  if (words.empty() || !IsNameChar(head[h - 1])) return false;
  std::string_view w = words[0];
  if (IsSecretName(w) || EqualsWord(w, "access_id")) return true;  // PASSWORD 'x', ACCESS_KEY = 'x'
  if (EqualsWord(w, "by") && words.size() > 1 && EqualsWord(words[1], "identified")) return true;
  if (EqualsWord(w, "as"))  // IDENTIFIED WITH plugin AS 'hash'
    for (size_t k = 1; k < words.size(); k++)
      if (EqualsWord(words[k], "identified")) return true;
  return false;
}

}  // namespace

std::string RedactSecrets(std::string_view text) {
  std::vector<Segment> segments = Split(text);
  std::string out;
  out.reserve(text.size());
  bool previous_string_names_secret = false;  // the last string was a secret's name ('property.sasl.password')
  bool password_for = false;                   // SET PASSWORD FOR 'u'@'h' = 'x': the next '= string' is the value
  for (size_t i = 0; i < segments.size(); i++) {
    const Segment& s = segments[i];
    if (!s.quoted) {
      out += MaskInside(s.body);
      std::vector<std::string_view> words = TrailingWords(s.body, 2);
      if (words.size() == 2 && EqualsWord(words[0], "for") && EqualsWord(words[1], "password")) password_for = true;
      continue;
    }
    std::string_view before = i > 0 && !segments[i - 1].quoted ? std::string_view(segments[i - 1].body) : "";
    bool adjacent_string = i > 0 && segments[i - 1].quoted;
    bool is_value = !adjacent_string && ValueFollows(before, previous_string_names_secret);
    if (password_for && !adjacent_string && !before.empty() && before.find('=') != std::string_view::npos) {
      is_value = true;
      password_for = false;
    }
    out += s.quote;
    if (is_value) {
      out += kSecretMask;
      previous_string_names_secret = false;  // a value is never the next pair's key
    } else {
      out += MaskInside(s.body);
      previous_string_names_secret = s.body.size() <= 256 && IsSecretName(s.body);
    }
    if (s.closed) out += s.quote;
  }
  return out;
}

std::string StripUrlCredentials(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  size_t host_start = scheme + 3;
  size_t at = url.find('@', host_start);
  size_t slash = url.find('/', host_start);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, host_start) + url.substr(at + 1);
}

}  // namespace sluice
