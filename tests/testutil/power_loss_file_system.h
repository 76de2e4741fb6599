// PowerLossFileSystem: the real file system under a root directory, plus a model of
// what a power cut would leave on disk.
//
// It remembers, per file (followed through renames), the bytes
// made durable by its last File::sync(), and, per directory, the names made durable
// by its last sync_dir() plus the create/rename/remove operations since. A power cut
// (cut_after(n): the n-th mutating call from now, or cut_now()) captures one state
// the disk could be in at that instant:
//   - every durable name, plus a random prefix of each directory's later operations
//     (a journaling file system commits them in order);
//   - per file, every durable byte; each 4 KiB page written since the last sync is
//     then kept as it was at the last sync, taken whole from the page cache, or torn
//     (each 512-byte sector from either); an unsynced size change may or may not stick.
// From the cut on, every mutating call fails with kIoError, as if the machine were
// gone, so the code under test can acknowledge nothing more. The test then drops the
// store and calls write_crash_image(), which rewrites the tree to the captured state.
//
// Mapped writes (index files) are seen because the model reads file contents through
// the page cache. Syncs are recorded, not performed (the real disk's durability is
// not the subject). Directory creation is treated as durable at once.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "storage/file_system.h"

namespace rokka::testutil {

class PowerLossFileSystem final : public storage::FileSystem {
  template <typename T>
  using Result = storage::Result<T>;
  using Status = storage::Status;
  using Bytes = std::vector<std::byte>;
  using Path = std::filesystem::path;

 public:
  // Everything already under `root` counts as durable.
  PowerLossFileSystem(Path root, uint64_t seed) : root_(std::move(root)), rng_(seed) { baseline(); }

  // The cut happens at the n-th mutating call from now (n >= 1).
  void cut_after(int64_t n) {
    std::lock_guard lock(mu_);
    countdown_ = n;
  }
  void cut_now() {
    std::lock_guard lock(mu_);
    if (!cut_) cut_locked();
  }
  bool cut() const {
    std::lock_guard lock(mu_);
    return cut_;
  }
  int64_t mutating_calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

  // Replaces the tree under root with the state captured at the cut. Call only once
  // nothing uses the file system any more (the store was destroyed).
  void write_crash_image() {
    std::lock_guard lock(mu_);
    for (const auto& entry : std::filesystem::directory_iterator(root_)) std::filesystem::remove_all(entry.path());
    for (const auto& [path, bytes] : image_) {
      std::filesystem::create_directories(path.parent_path());
      auto f = real().open(path, true);
      if (!f.ok() || !(*f)->truncate(0).ok() || !(*f)->write_at(0, bytes).ok()) std::abort();
    }
    for (const auto& dir : image_dirs_) std::filesystem::create_directories(dir);
  }

  // ---- FileSystem ----
  Result<std::unique_ptr<storage::File>> open(const Path& path, bool create) override {
    std::lock_guard lock(mu_);
    const bool existed = real().exists(path);
    if (!existed && create && !mutate_locked()) return Status::io_error("power cut");
    auto f = real().open(path, create);
    if (!f.ok()) return f.status();
    if (!existed) dir_ops_[path.parent_path()].push_back({DirOp::kCreate, path.filename(), {}, new_id(path)});
    return std::unique_ptr<storage::File>(std::make_unique<ModelFile>(*this, std::move(*f), id_of(path)));
  }
  Status remove(const Path& path) override {
    std::lock_guard lock(mu_);
    if (!mutate_locked()) return Status::io_error("power cut");
    if (!real().exists(path)) return {};
    const FileId id = forget(path);
    dir_ops_[path.parent_path()].push_back({DirOp::kRemove, path.filename(), {}, id});
    return real().remove(path);
  }
  Status rename(const Path& from, const Path& to) override {
    std::lock_guard lock(mu_);
    if (!mutate_locked()) return Status::io_error("power cut");
    if (from.parent_path() != to.parent_path()) return Status::invalid_argument("model: rename across directories");
    if (!real().exists(from)) return real().rename(from, to);
    if (real().exists(to)) forget(to);  // replaced: a lost rename brings it back
    const FileId id = id_of(from);
    Status s = real().rename(from, to);
    if (s.ok()) dir_ops_[from.parent_path()].push_back({DirOp::kRename, from.filename(), to.filename(), id});
    return s;
  }
  Status sync_dir(const Path& dir) override {
    std::lock_guard lock(mu_);
    if (!mutate_locked()) return Status::io_error("power cut");
    durable_names_[dir] = list_ids(dir);
    dir_ops_.erase(dir);
    return {};
  }
  Status create_dirs(const Path& dir) override { return real().create_dirs(dir); }
  bool exists(const Path& path) override { return real().exists(path); }
  Result<std::vector<std::string>> list(const Path& dir) override { return real().list(dir); }

 private:
  using FileId = uint64_t;  // a file's identity in the model (inode numbers get reused)
  struct DirOp {
    enum Kind { kCreate, kRemove, kRename } kind;
    Path name, to;
    FileId id;
  };
  using Names = std::map<Path, FileId>;  // file name -> file

  class ModelFile final : public storage::File {
   public:
    ModelFile(PowerLossFileSystem& fs, std::unique_ptr<storage::File> f, FileId id)
        : fs_(fs), f_(std::move(f)), id_(id) {}
    Status write_at(int64_t o, std::span<const std::byte> d) override {
      return fs_.mutate() ? f_->write_at(o, d) : Status::io_error("power cut");
    }
    Status read_at(int64_t o, std::span<std::byte> out) override { return f_->read_at(o, out); }
    Status sync() override {
      std::lock_guard lock(fs_.mu_);
      if (!fs_.mutate_locked()) return Status::io_error("power cut");
      fs_.durable_[id_] = contents(*f_);
      return {};
    }
    Status truncate(int64_t s) override { return fs_.mutate() ? f_->truncate(s) : Status::io_error("power cut"); }
    Status punch_hole(int64_t o, int64_t l) override {
      return fs_.mutate() ? f_->punch_hole(o, l) : Status::io_error("power cut");
    }
    Status allocate(int64_t o, int64_t l) override {
      return fs_.mutate() ? f_->allocate(o, l) : Status::io_error("power cut");
    }
    Status drop_cache(int64_t o, int64_t l) override { return f_->drop_cache(o, l); }  // contents unchanged
    Result<int64_t> size() override { return f_->size(); }
    Result<std::shared_ptr<storage::Mapping>> map(int64_t s, bool w, bool r) override { return f_->map(s, w, r); }

   private:
    PowerLossFileSystem& fs_;
    std::unique_ptr<storage::File> f_;
    FileId id_;
  };

  static storage::FileSystem& real() { return storage::FileSystem::real(); }

  static ino_t inode_of(const Path& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
  }
  static Bytes contents(storage::File& f) {
    auto size = f.size();
    Bytes out(size.ok() ? static_cast<size_t>(*size) : 0);
    if (!out.empty() && !f.read_at(0, out).ok()) std::abort();
    return out;
  }
  Names list_ids(const Path& dir) {
    Names names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.is_regular_file()) names[e.path().filename()] = id_of(e.path());
    return names;
  }
  FileId new_id(const Path& path) {
    const FileId id = next_id_++;
    ids_[inode_of(path)] = id;
    return id;
  }
  FileId id_of(const Path& path) {
    auto it = ids_.find(inode_of(path));
    return it != ids_.end() ? it->second : new_id(path);
  }
  // The file at `path` is about to go: keep its contents should the crash undo that.
  FileId forget(const Path& path) {
    const FileId id = id_of(path);
    if (auto bytes = storage::read_file(real(), path); bytes.ok()) last_content_[id] = std::move(*bytes);
    ids_.erase(inode_of(path));
    return id;
  }

  bool mutate() {
    std::lock_guard lock(mu_);
    return mutate_locked();
  }
  // Counts a mutating call; false once the power is cut (the cut may happen now).
  bool mutate_locked() {
    if (cut_) return false;
    ++calls_;
    if (countdown_ > 0 && --countdown_ == 0) {
      cut_locked();
      return false;
    }
    return true;
  }

  void baseline() {
    for (const auto& e : std::filesystem::recursive_directory_iterator(root_)) {
      if (e.is_directory()) {
        durable_names_[e.path()] = list_ids(e.path());
      } else if (e.is_regular_file()) {
        auto bytes = storage::read_file(real(), e.path());
        if (bytes.ok()) durable_[id_of(e.path())] = std::move(*bytes);
      }
    }
    durable_names_[root_] = list_ids(root_);
  }

  // Captures one possible on-disk state (see the header comment) into image_.
  void cut_locked() {
    cut_ = true;
    std::map<FileId, Bytes> current = last_content_;
    std::map<Path, bool> dirs;
    for (const auto& [dir, names] : durable_names_) dirs[dir] = true;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root_)) {
      if (e.is_directory()) dirs[e.path()] = true;
      if (!e.is_regular_file()) continue;
      auto bytes = storage::read_file(real(), e.path());
      if (bytes.ok()) current[id_of(e.path())] = std::move(*bytes);
    }
    image_.clear();
    image_dirs_.clear();
    for (const auto& [dir, unused] : dirs) {
      image_dirs_.push_back(dir);
      Names names = durable_names_[dir];
      const auto& ops = dir_ops_[dir];
      const size_t kept = std::uniform_int_distribution<size_t>(0, ops.size())(rng_);
      for (size_t i = 0; i < kept; ++i) apply(names, ops[i]);
      for (const auto& [name, id] : names) image_[dir / name] = crash_contents(durable_[id], current[id]);
    }
  }

  static void apply(Names& names, const DirOp& op) {
    switch (op.kind) {
      case DirOp::kCreate:
        names[op.name] = op.id;
        break;
      case DirOp::kRemove:
        names.erase(op.name);
        break;
      case DirOp::kRename:
        names.erase(op.name);
        names[op.to] = op.id;
        break;
    }
  }

  Bytes crash_contents(const Bytes& durable, const Bytes& now) {
    constexpr size_t kPage = 4096, kSector = 512;
    size_t size = now.size();
    if (durable.size() != now.size() && coin()) size = durable.size();
    Bytes out(size);
    auto at = [](const Bytes& b, size_t i) { return i < b.size() ? b[i] : std::byte{0}; };
    for (size_t page = 0; page < size; page += kPage) {
      const size_t end = std::min(size, page + kPage);
      bool same = true;
      for (size_t i = page; i < end && same; ++i) same = at(durable, i) == at(now, i);
      const int mode = same ? 1 : std::uniform_int_distribution<int>(0, 2)(rng_);  // old, new, torn
      for (size_t sector = page; sector < end; sector += kSector) {
        const bool take_new = mode == 1 || (mode == 2 && coin());
        for (size_t i = sector; i < std::min(end, sector + kSector); ++i) out[i] = at(take_new ? now : durable, i);
      }
    }
    return out;
  }
  bool coin() { return std::uniform_int_distribution<int>(0, 1)(rng_) == 1; }

  const Path root_;
  mutable std::mutex mu_;
  std::mt19937_64 rng_;
  std::map<ino_t, FileId> ids_;           // live files
  FileId next_id_ = 1;
  std::map<FileId, Bytes> durable_;       // contents at the last sync
  std::map<FileId, Bytes> last_content_;  // contents of removed or replaced files, when they went
  std::map<Path, Names> durable_names_;  // per directory, as of the last sync_dir
  std::map<Path, std::vector<DirOp>> dir_ops_;  // per directory, since then
  int64_t countdown_ = 0;
  int64_t calls_ = 0;
  bool cut_ = false;
  std::map<Path, Bytes> image_;
  std::vector<Path> image_dirs_;
};

}  // namespace rokka::testutil
