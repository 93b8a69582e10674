#include "core/checkpoint/durable_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "core/common/error.h"

namespace rlzoo::durable {

namespace fs = std::filesystem;

namespace {

// Closes a descriptor on scope exit unless release()d; close errors on the success path are
// checked by the caller through close_checked().
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // close(2) and report its error: on NFS and some others, write errors surface only here.
  int close_checked() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

void write_all(int fd, std::string_view bytes, const fs::path& path) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_os_error("cannot write", path, errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

fs::path parent_or_dot(const fs::path& p) {
  const fs::path parent = p.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

}  // namespace

void throw_os_error(std::string_view what, const fs::path& path, int err) {
  throw UserError(fmt::format("{} {}: {}", what, path.string(), std::strerror(err)));
}

std::string hidden_sibling_name(std::string_view base, std::string_view tag) {
  static std::atomic<unsigned> counter{0};
  return fmt::format(".{}.{}-{}-{}", base, tag, static_cast<long>(::getpid()), counter.fetch_add(1));
}

void write_new_file(const fs::path& path, std::string_view bytes) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw_os_error("cannot create", path, errno);
  write_all(fd.get(), bytes, path);
  if (::fsync(fd.get()) != 0) throw_os_error("cannot fsync", path, errno);
  if (const int err = fd.close_checked(); err != 0) throw_os_error("cannot close", path, err);
}

void sync_directory(const fs::path& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) throw_os_error("cannot open directory", dir, errno);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) throw_os_error("cannot fsync directory", dir, errno);
}

void rename_path(const fs::path& from, const fs::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    const int err = errno;
    throw UserError(fmt::format("cannot rename {} to {}: {}", from.string(), to.string(), std::strerror(err)));
  }
}

bool exchange_paths(const fs::path& a, const fs::path& b) {
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
  const int err = errno;
  if (err == EINVAL || err == ENOSYS || err == ENOTSUP) return false;  // this filesystem cannot
  throw UserError(fmt::format("cannot exchange {} and {}: {}", a.string(), b.string(), std::strerror(err)));
}

void replace_file(const fs::path& path, std::string_view bytes) {
  const fs::path dir = parent_or_dot(path);
  const fs::path temp = dir / hidden_sibling_name(path.filename().string(), "tmp");
  try {
    write_new_file(temp, bytes);
    rename_path(temp, path);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  sync_directory(dir);
}

void create_directories(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  const fs::path parent = dir.parent_path();
  if (!parent.empty() && parent != dir) durable::create_directories(parent);
  if (::mkdir(dir.c_str(), 0755) != 0) {
    if (errno == EEXIST && fs::is_directory(dir, ec)) return;  // created concurrently
    throw_os_error("cannot create directory", dir, errno);
  }
  sync_directory(parent_or_dot(dir));
}

bool remove_all_quietly(const fs::path& path) noexcept {
  std::error_code ec;
  fs::remove_all(path, ec);
  return !ec;
}

std::string read_file(const fs::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw_os_error("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_os_error("cannot stat", path, errno);
  std::string out;
  out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_os_error("cannot read", path, errno);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace rlzoo::durable
