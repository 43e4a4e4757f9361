// Quantities with units as people write them in cluster files: "25 Gb/s",
// "12.5 GB/s", "10 us", "64 MiB". Each parser throws std::invalid_argument
// with what it expected; the caller adds the file and the key.
#pragma once

#include <string>

namespace aoe::gdat {

// Bytes per microsecond. A unit is required: "Gb/s" and "GB/s" differ by 8.
double parse_bandwidth(const std::string& text);
// Microseconds; a bare number is microseconds.
double parse_duration_us(const std::string& text);
// Bytes; a bare number is bytes. KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024.
double parse_bytes(const std::string& text);

// "97.5 MiB", "25.6 GB/s": short readable forms for logs.
std::string format_bytes(double bytes);
std::string format_bandwidth(double bytes_per_us);
// "12.345 ms" from microseconds.
std::string ms_text(double us);

}  // namespace aoe::gdat
