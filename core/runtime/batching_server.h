// Batched inference: actor threads submit rows (observations), a server thread gathers the
// pending requests into one batch, runs one handler call (one forward pass) over it and
// scatters the result rows back to the waiting actors.
//
//   BatchingServer server(obs_bytes, out_bytes, [&](ConstBytes in, int64_t rows, Bytes out) {
//     ... one forward pass over `rows` rows ...
//   }, {.max_batch = 256, .max_wait_us = 200, .clients = 2});
//   actor thread: server.evaluate(obs_rows, n, out_rows);   // blocks until served
//
// A batch is dispatched as soon as any of these holds: it has max_batch rows; every one of
// the `clients` threads is waiting in it (nobody else can join); max_wait_us passed since its
// first request arrived. A request is never split: one larger than max_batch is served alone.
// The handler runs on the server thread only, so it may own a network that is not
// thread-safe. If it throws, the requests of that batch rethrow the exception from
// evaluate(); the server goes on with the next batch.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/common/bytes.h"

namespace rlzoo {

struct BatchingOptions {
  std::int64_t max_batch = 256;    // rows per handler call (at least one request)
  std::int64_t max_wait_us = 200;  // longest wait for more requests after the first
  int clients = 0;                 // threads that submit (0: unknown, wait for time or size)
};

class BatchingServer {
 public:
  using Handler = std::function<void(ConstBytes in, std::int64_t rows, Bytes out)>;

  BatchingServer(std::size_t in_row_bytes, std::size_t out_row_bytes, Handler handler, BatchingOptions options = {});
  ~BatchingServer();  // stop()
  BatchingServer(const BatchingServer&) = delete;
  BatchingServer& operator=(const BatchingServer&) = delete;

  // Evaluates `rows` rows of `in` into `out` (rows * row bytes each). Blocks until served.
  // Returns false when the server was stopped before serving it (out is then unspecified).
  // Rethrows the handler's exception.
  bool evaluate(ConstBytes in, std::int64_t rows, Bytes out);
  // Stops the server thread; waiting and later evaluate() calls return false. Idempotent.
  void stop();

  std::size_t in_row_bytes() const { return in_row_bytes_; }
  std::size_t out_row_bytes() const { return out_row_bytes_; }
  // Handler calls and rows served so far (mean batch = rows / batches).
  std::uint64_t batches() const;
  std::uint64_t rows_served() const;

 private:
  struct Request {
    const std::byte* in = nullptr;
    std::byte* out = nullptr;
    std::int64_t rows = 0;
    bool done = false;
    bool served = false;
    std::exception_ptr error;
  };
  void serve();

  const std::size_t in_row_bytes_, out_row_bytes_;
  Handler handler_;
  BatchingOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_, served_;
  std::vector<Request*> pending_;
  bool stopping_ = false;
  std::uint64_t batches_ = 0, rows_ = 0;
  std::vector<std::byte> in_batch_, out_batch_;
  std::thread thread_;
};

}  // namespace rlzoo
