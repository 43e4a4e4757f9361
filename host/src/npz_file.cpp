#include "npz_file.h"

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "aoe/sdk/atomic_file.h"
#include "aoe/sdk/error.h"

namespace aoe::host {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDirectory = 0x06054b50;
constexpr char kNpyMagic[] = "\x93NUMPY";

[[noreturn]] void bad(const std::filesystem::path& file, const std::string& why) {
  throw Error(StatusCode::invalid_argument, file.string() + ": " + why);
}

uint64_t little(const std::string& bytes, size_t at, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(bytes[at + static_cast<size_t>(i)]);
  return v;
}

void put(std::string& out, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t crc32(const std::string& bytes) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (char b : bytes) c = table[(c ^ static_cast<uint8_t>(b)) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

// Integer arrays (token ids, Gather indices) become floats holding whole
// numbers, as the devices take them; exact up to 2^24.
template <typename Int>
void ints_to_floats(const std::string& bytes, size_t at, std::vector<float>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    Int v;
    std::memcpy(&v, bytes.data() + at + i * sizeof(Int), sizeof(Int));  // little-endian, as the host
    out[i] = static_cast<float>(v);
  }
}

// One .npy member: float32 (or int64, int32, uint8, int8, bool: see ints_to_floats), little-endian, C order.
FloatArray parse_npy(const std::filesystem::path& file, const std::string& member, const std::string& npy) {
  const std::string where = "member '" + member + "'";
  if (npy.size() < 10 || npy.compare(0, 6, kNpyMagic, 6) != 0) bad(file, where + " is not a .npy array");
  const int major = static_cast<uint8_t>(npy[6]);
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (npy.size() < 8 + len_bytes) bad(file, where + " ends inside its header");
  const uint64_t header_len = little(npy, 8, static_cast<int>(len_bytes));
  const uint64_t data_at = 8 + len_bytes + header_len;
  if (data_at > npy.size()) bad(file, where + " ends inside its header");
  const std::string header = npy.substr(8 + len_bytes, header_len);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr'\\s*:\\s*'([^']*)'")))
    bad(file, where + " has no dtype (" + header + ")");
  const std::string descr = m[1].str();
  // Bools (a padding mask) and bytes (a quantized model's uint8 input) are one byte each.
  const bool byte = descr == "|b1" || descr == "|u1" || descr == "|i1";
  const size_t item = byte                                                                 ? 1
                      : descr == "<f4" || descr == "=f4" || descr == "<i4" || descr == "=i4" ? 4
                      : descr == "<i8" || descr == "=i8"                                   ? 8
                                                                                           : 0;
  if (item == 0) bad(file, where + " is not float32, int32, int64, uint8, int8 or bool (" + header + ")");
  if (!std::regex_search(header, m, std::regex("'fortran_order'\\s*:\\s*False")))
    bad(file, where + " is in Fortran order; save it C-contiguous");
  if (!std::regex_search(header, m, std::regex("'shape'\\s*:\\s*\\(([^)]*)\\)"))) bad(file, where + " has no shape");
  FloatArray a;
  std::stringstream dims(m[1].str());
  std::string dim;
  uint64_t count = 1;
  while (std::getline(dims, dim, ',')) {
    if (dim.find_first_not_of(" ") == std::string::npos) continue;
    int64_t d = -1;
    try {
      d = std::stoll(dim);
    } catch (const std::exception&) {
    }
    if (d < 0 || (d > 0 && count > (npy.size() / item) / static_cast<uint64_t>(d)))
      bad(file, where + " has a shape that does not fit its " + std::to_string(npy.size()) + " bytes");
    a.shape.push_back(d);
    count *= static_cast<uint64_t>(d);
  }
  if (npy.size() - data_at != count * item)
    bad(file, where + " holds " + std::to_string(npy.size() - data_at) + " bytes of data, its shape needs " +
                  std::to_string(count * item));
  a.data.resize(count);
  if (descr == "|i1") ints_to_floats<int8_t>(npy, data_at, a.data);
  else if (byte) ints_to_floats<uint8_t>(npy, data_at, a.data);  // a bool's byte is 0 or 1
  else if (descr[1] == 'i' && item == 8) ints_to_floats<int64_t>(npy, data_at, a.data);
  else if (descr[1] == 'i') ints_to_floats<int32_t>(npy, data_at, a.data);
  else if (count) std::memcpy(a.data.data(), npy.data() + data_at, count * sizeof(float));
  return a;
}

std::string npy_bytes(const FloatArray& a) {
  std::string shape;
  for (auto d : a.shape) shape += std::to_string(d) + ", ";
  if (a.shape.size() > 1) shape.resize(shape.size() - 1);  // "(2, 3)" but "(4,)"
  if (!shape.empty() && shape.back() == ' ') shape.pop_back();
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kNpyMagic, 6);
  out.push_back(1);
  out.push_back(0);
  put(out, header.size(), 2);
  out += header;
  out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size() * sizeof(float));
  return out;
}

}  // namespace

std::map<std::string, FloatArray> read_npz(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) bad(file, "cannot be opened");
  const std::string zip((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::string, FloatArray> out;
  size_t at = 0;
  while (at + 4 <= zip.size() && little(zip, at, 4) == kLocalHeader) {
    if (at + 30 > zip.size()) bad(file, "ends inside a member's header");
    const uint64_t flags = little(zip, at + 6, 2), method = little(zip, at + 8, 2);
    uint64_t size = little(zip, at + 18, 4);
    const uint64_t name_len = little(zip, at + 26, 2), extra_len = little(zip, at + 28, 2);
    if (at + 30 + name_len + extra_len > zip.size()) bad(file, "ends inside a member's header");
    const std::string name = zip.substr(at + 30, name_len);
    const std::string extra = zip.substr(at + 30 + name_len, extra_len);
    if (method != 0) bad(file, "member '" + name + "' is compressed; write it with np.savez, not np.savez_compressed");
    if (flags & 8) bad(file, "member '" + name + "' was written as a stream, without its size");
    if (size == 0xffffffffu) {  // zip64: the size is in the extra field
      for (size_t e = 0; e + 4 <= extra.size();) {
        const uint64_t id = little(extra, e, 2), len = little(extra, e + 2, 2);
        if (id == 1 && len >= 8 && e + 4 + 8 <= extra.size()) size = little(extra, e + 4, 8);
        e += 4 + len;
      }
    }
    const uint64_t data_at = at + 30 + name_len + extra_len;
    if (size > zip.size() - data_at) bad(file, "member '" + name + "' runs past the end of the file");
    std::string key = name;
    if (key.size() > 4 && key.compare(key.size() - 4, 4, ".npy") == 0) key.resize(key.size() - 4);
    out[key] = parse_npy(file, name, zip.substr(data_at, size));
    at = data_at + size;
  }
  if (out.empty()) bad(file, "is not an .npz archive of arrays");
  return out;
}

void write_npz(const std::filesystem::path& file, const std::vector<std::pair<std::string, FloatArray>>& arrays) {
  std::string zip, directory;
  for (const auto& [name, array] : arrays) {
    const std::string member = name + ".npy", npy = npy_bytes(array);
    if (npy.size() >= 0xffffffffu || zip.size() >= 0xffffffffu)
      throw Error(StatusCode::invalid_argument, file.string() + ": array '" + name + "' is too large for this writer");
    const uint32_t crc = crc32(npy);
    std::string common;  // version needed .. extra length, as both headers share it
    put(common, 20, 2);
    put(common, 0, 2);  // flags
    put(common, 0, 2);  // stored
    put(common, 0, 2);  // time
    put(common, 0x21, 2);  // date: 1980-01-01
    put(common, crc, 4);
    put(common, npy.size(), 4);
    put(common, npy.size(), 4);
    put(common, member.size(), 2);
    put(common, 0, 2);
    put(directory, kCentralHeader, 4);
    put(directory, 20, 2);  // made by
    directory += common;
    put(directory, 0, 2);  // comment
    put(directory, 0, 2);  // disk
    put(directory, 0, 2);  // internal attributes
    put(directory, 0, 4);  // external attributes
    put(directory, zip.size(), 4);
    directory += member;
    put(zip, kLocalHeader, 4);
    zip += common + member + npy;
  }
  const size_t directory_at = zip.size();
  zip += directory;
  put(zip, kEndOfDirectory, 4);
  put(zip, 0, 4);  // disks
  put(zip, arrays.size(), 2);
  put(zip, arrays.size(), 2);
  put(zip, directory.size(), 4);
  put(zip, directory_at, 4);
  put(zip, 0, 2);
  aoe::sdk::write_atomically(file, zip);
}

}  // namespace aoe::host
