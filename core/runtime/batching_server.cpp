#include "core/runtime/batching_server.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/common/error.h"

namespace rlzoo {

BatchingServer::BatchingServer(std::size_t in_row_bytes, std::size_t out_row_bytes, Handler handler,
                               BatchingOptions options)
    : in_row_bytes_(in_row_bytes), out_row_bytes_(out_row_bytes), handler_(std::move(handler)), options_(options) {
  if (options_.max_batch < 1) throw UserError("inference.max_batch must be >= 1");
  if (options_.max_wait_us < 0) throw UserError("inference.max_wait_us must be >= 0");
  thread_ = std::thread([this] { serve(); });
}

BatchingServer::~BatchingServer() { stop(); }

void BatchingServer::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  arrived_.notify_all();
  served_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

std::uint64_t BatchingServer::batches() const {
  std::lock_guard lock(mutex_);
  return batches_;
}
std::uint64_t BatchingServer::rows_served() const {
  std::lock_guard lock(mutex_);
  return rows_;
}

bool BatchingServer::evaluate(ConstBytes in, std::int64_t rows, Bytes out) {
  RLZOO_CHECK(rows >= 0 && in.size() == static_cast<std::size_t>(rows) * in_row_bytes_ &&
                  out.size() == static_cast<std::size_t>(rows) * out_row_bytes_,
              "BatchingServer::evaluate: row sizes do not match the server's");
  if (rows == 0) return true;
  Request request;
  request.in = in.data();
  request.out = out.data();
  request.rows = rows;
  std::unique_lock lock(mutex_);
  if (stopping_) return false;
  pending_.push_back(&request);
  lock.unlock();
  arrived_.notify_one();
  lock.lock();
  served_.wait(lock, [&] { return request.done; });
  if (request.error) std::rethrow_exception(request.error);
  return request.served;
}

void BatchingServer::serve() {
  std::vector<Request*> batch;
  std::unique_lock lock(mutex_);
  for (;;) {
    arrived_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    if (stopping_) break;
    // Gather: more requests may join until the batch is full, every client waits in it, or
    // the first request has waited max_wait_us.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(options_.max_wait_us);
    auto pending_rows = [&] {
      std::int64_t r = 0;
      for (const Request* q : pending_) r += q->rows;
      return r;
    };
    arrived_.wait_until(lock, deadline, [&] {
      return stopping_ || pending_rows() >= options_.max_batch ||
             (options_.clients > 0 && static_cast<int>(pending_.size()) >= options_.clients);
    });
    if (stopping_) break;

    // Take requests in arrival order up to max_batch rows (the first one always).
    batch.clear();
    std::int64_t rows = 0;
    std::size_t taken = 0;
    while (taken < pending_.size() && (taken == 0 || rows + pending_[taken]->rows <= options_.max_batch)) {
      rows += pending_[taken]->rows;
      batch.push_back(pending_[taken]);
      ++taken;
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(taken));
    lock.unlock();

    in_batch_.resize(static_cast<std::size_t>(rows) * in_row_bytes_);
    out_batch_.resize(static_cast<std::size_t>(rows) * out_row_bytes_);
    std::size_t offset = 0;
    for (const Request* q : batch) {
      const std::size_t n = static_cast<std::size_t>(q->rows) * in_row_bytes_;
      std::memcpy(in_batch_.data() + offset, q->in, n);
      offset += n;
    }
    std::exception_ptr error;
    try {
      handler_(ConstBytes(in_batch_), rows, Bytes(out_batch_));
    } catch (...) {
      error = std::current_exception();
    }
    offset = 0;
    for (Request* q : batch) {
      const std::size_t n = static_cast<std::size_t>(q->rows) * out_row_bytes_;
      if (!error) std::memcpy(q->out, out_batch_.data() + offset, n);
      offset += n;
    }

    lock.lock();
    for (Request* q : batch) {
      q->error = error;
      q->served = !error;
      q->done = true;
    }
    ++batches_;
    rows_ += static_cast<std::uint64_t>(rows);
    served_.notify_all();
  }
  // Stopped: release everyone still waiting.
  for (Request* q : pending_) q->done = true;
  pending_.clear();
  served_.notify_all();
}

}  // namespace rlzoo
