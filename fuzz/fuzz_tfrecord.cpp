// libFuzzer target: the TFRecord / TensorBoard event reader (core/logging/tfrecord_reader.h),
// which tests and users point at event files that may be half-written or damaged.
//
// On any bytes, parse_tfrecords either throws UserError (a CRC mismatch) or returns whole
// records that lie inside the input, in order, each starting where the previous one ended; a
// truncated tail starts past the last whole record. Every record is also parsed as an Event,
// as read_event_file does.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/common/error.h"
#include "core/logging/tfrecord_reader.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  rlzoo::TfRecordScan scan;
  try {
    scan = rlzoo::parse_tfrecords(bytes, "<fuzz>");
  } catch (const rlzoo::UserError&) {
    return 0;
  }
  // A record's framing: 8-byte length, 4-byte length CRC, the data, 4-byte data CRC.
  std::uint64_t next = 0;
  for (const auto& r : scan.records) {
    check(r.offset == next);
    next = r.offset + 16 + r.data.size();
    check(next <= size);
    rlzoo::tensorboard::Event event;
    (void)event.ParseFromString(r.data);  // damaged payloads may fail; they must not crash
  }
  if (scan.truncated) check(scan.truncated_offset == next && next < size);
  else check(next == size);
  return 0;
}
