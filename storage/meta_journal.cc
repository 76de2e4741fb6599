#include "storage/meta_journal.h"

#include "storage/format.h"
#include "storage/logger.h"

namespace rokka::storage {
namespace {

constexpr uint8_t kPut = 0;
constexpr uint8_t kErase = 1;
constexpr int64_t kCompactMinBytes = 4 << 20;
constexpr size_t kSnapshotRecordBytes = 4 << 20;

}  // namespace

bool MetaJournal::decode_payload(std::span<const std::byte> payload, std::vector<MetaStore::Mutation>& out,
                                 size_t* used) {
  format::Decoder d(payload);
  const uint32_t n = d.count(5);
  for (uint32_t i = 0; i < n && d.ok(); ++i) {
    MetaStore::Mutation m;
    const uint8_t op = d.u8();
    if (op != kPut && op != kErase) return false;
    m.erase = op == kErase;
    m.key = std::string(d.bytes());
    if (!m.erase) m.value = std::string(d.bytes());
    out.push_back(std::move(m));
  }
  if (!d.ok()) return false;
  if (used) *used = payload.size() - d.remaining();
  return used || d.remaining() == 0;
}

std::vector<std::byte> MetaJournal::encode_payload(const std::vector<MetaStore::Mutation>& batch) {
  auto record = encode_record(batch);
  record.erase(record.begin(), record.begin() + format::kJournalRecordHeaderSize);
  return record;
}

std::vector<std::byte> MetaJournal::encode_record(const std::vector<MetaStore::Mutation>& batch) {
  format::Encoder e;
  e.u64(0);  // header placeholder: length, crc
  e.u32(static_cast<uint32_t>(batch.size()));
  for (const auto& m : batch) {
    e.u8(m.erase ? kErase : kPut);
    e.bytes(m.key);
    if (!m.erase) e.bytes(m.value);
  }
  auto& buf = e.buffer();
  const auto payload = std::span(buf).subspan(format::kJournalRecordHeaderSize);
  format::put_le32(buf.data(), static_cast<uint32_t>(payload.size()));
  format::put_le32(buf.data() + 4, crc32c(payload));
  return std::move(buf);
}

Result<std::unique_ptr<MetaJournal>> MetaJournal::open(FileSystem& fs, const std::filesystem::path& dir) {
  if (Status s = fs.create_dirs(dir); !s.ok()) return s;
  std::unique_ptr<MetaJournal> j(new MetaJournal(fs, dir));
  const bool created = !fs.exists(j->path());
  auto file = fs.open(j->path(), true);
  if (!file.ok()) return file.status();
  j->file_ = std::move(*file);
  // A new journal's name must be durable before any record in it is acknowledged:
  // a power cut would otherwise take the whole file (the partition table) with it.
  if (created) {
    if (Status s = fs.sync_dir(dir); !s.ok()) return s;
  }
  auto data = read_file(fs, j->path());
  if (!data.ok()) return data.status();
  const size_t valid = j->replay(*data);
  if (valid < data->size()) {
    log_warn("meta journal: cut torn or corrupt tail: valid_bytes={} dropped_bytes={}", valid, data->size() - valid);
    if (Status s = j->file_->truncate(static_cast<int64_t>(valid)); !s.ok()) return s;
    if (Status s = j->file_->sync(); !s.ok()) return s;
  }
  j->size_ = static_cast<int64_t>(valid);
  return j;
}

size_t MetaJournal::replay(std::span<const std::byte> data) {
  size_t pos = 0;
  std::vector<MetaStore::Mutation> batch;
  while (data.size() - pos >= format::kJournalRecordHeaderSize) {
    const uint32_t len = format::get_le32(data.data() + pos);
    const uint32_t crc = format::get_le32(data.data() + pos + 4);
    if (len > format::kMaxJournalRecord || len > data.size() - pos - format::kJournalRecordHeaderSize) break;
    const auto payload = data.subspan(pos + format::kJournalRecordHeaderSize, len);
    batch.clear();
    if (crc32c(payload) != crc || !decode_payload(payload, batch)) break;
    apply(batch);
    pos += format::kJournalRecordHeaderSize + len;
  }
  return pos;
}

void MetaJournal::apply(const std::vector<MetaStore::Mutation>& batch) {
  std::lock_guard lock(mu_);
  for (const auto& m : batch) {
    auto it = map_.find(m.key);
    if (it != map_.end()) {
      live_bytes_ -= static_cast<int64_t>(it->first.size() + it->second.size());
      if (m.erase) {
        map_.erase(it);
        continue;
      }
      it->second = m.value;
    } else if (m.erase) {
      continue;
    } else {
      map_.emplace(m.key, m.value);
    }
    live_bytes_ += static_cast<int64_t>(m.key.size() + m.value.size());
  }
}

Status MetaJournal::append(const std::vector<MetaStore::Mutation>& batch) {
  const auto record = encode_record(batch);
  if (record.size() - format::kJournalRecordHeaderSize > format::kMaxJournalRecord)
    return Status::too_large("meta batch too large");
  if (Status s = file_->write_at(size_, record); !s.ok()) return s;
  size_ += static_cast<int64_t>(record.size());
  unsynced_ = true;
  apply(batch);
  return {};
}

Status MetaJournal::sync() {
  if (!unsynced_) return {};
  if (Status s = file_->sync(); !s.ok()) return s;
  unsynced_ = false;
  return {};
}

Status MetaJournal::maybe_compact() {
  if (size_ < kCompactMinBytes || size_ < 4 * (live_bytes_ + 1024)) return {};
  std::vector<std::byte> out;
  {
    std::lock_guard lock(mu_);
    std::vector<MetaStore::Mutation> chunk;
    size_t chunk_bytes = 0;
    auto emit = [&] {
      const auto rec = encode_record(chunk);
      out.insert(out.end(), rec.begin(), rec.end());
      chunk.clear();
      chunk_bytes = 0;
    };
    for (const auto& [k, v] : map_) {
      chunk.push_back({k, v, false});
      chunk_bytes += k.size() + v.size() + 9;
      if (chunk_bytes >= kSnapshotRecordBytes) emit();
    }
    if (!chunk.empty()) emit();
  }
  if (Status s = write_file_atomic(fs_, path(), out); !s.ok()) return s;
  auto file = fs_.open(path(), false);
  if (!file.ok()) return file.status();
  log_info("meta journal compacted: bytes_before={} bytes_after={}", size_, out.size());
  file_ = std::move(*file);
  size_ = static_cast<int64_t>(out.size());
  unsynced_ = false;
  return {};
}

std::vector<std::pair<std::string, std::string>> MetaJournal::scan(std::string_view prefix) const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = map_.lower_bound(prefix); it != map_.end() && it->first.starts_with(prefix); ++it)
    out.emplace_back(it->first, it->second);
  return out;
}

std::optional<std::string> MetaJournal::get(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return std::nullopt;
  return it->second;
}

}  // namespace rokka::storage
