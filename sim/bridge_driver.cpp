// A board behind a pseudo-terminal: the Verilated UART bridge (class Vdut, ports clk, rst, rx,
// tx, overflow, framing_error), run in real time, its serial lines joined to a pty's master.
//
// Built by utfhw.sim.bridge. The host opens the pty's other end as it would a board's serial
// port. What the host writes is read from the master and sent on rx as 8N1 frames at the host's
// baud rate (--host-baud), back to back while bytes wait, as a host's UART sends them; tx is
// sampled in the middle of each bit at that same rate, and each byte received is written back
// to the master. A frame whose stop bit is low is passed on as a 0 byte, as Linux passes one in
// raw mode. The bridge itself runs at the rate it was generated for, so a --host-baud other
// than that shows what a wrong baud rate does.
//
// Simulated time is held to wall time: the driver sleeps while it is ahead. Each byte is taken
// from the pty soon after it is written and stamped with the earliest time it can have been
// written (the driver's previous look at the pty), and its frame starts no earlier in
// simulated time. So the gaps the host leaves between its writes are kept when the
// simulation runs slower than real time (the bytes then reach the bridge late, as through a
// slow link, but at the right intervals), and when the driver itself is held up a while, the
// bytes written meanwhile make no gap the host did not leave. It runs until its standard input ends, then prints
// "overflow N", "framing_error N", "cycles N" and "behind_ms N" (the furthest the simulation
// fell behind wall time) on standard output.
//
//   --pty-fd N      the master's file descriptor, inherited
//   --clock HZ      the bridge's clock frequency
//   --host-baud B   the host's baud rate

#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "Vdut.h"
#include "verilated.h"

namespace {

[[noreturn]] void fail(const std::string &message) {
    std::fprintf(stderr, "utfhw bridge driver: %s\n", message.c_str());
    std::exit(2);
}

// Check the clock and the pty this often (seconds of simulated time).
const double kCheckSeconds = 0.0001;
// Sleep once the simulation is this far ahead of wall time.
const double kLeadSeconds = 0.0005;

}  // namespace

int main(int argc, char **argv) {
    int pty = -1;
    double clock = 0, host_baud = 0;
    for (int index = 1; index + 1 < argc; index += 2) {
        std::string name = argv[index];
        const char *value = argv[index + 1];
        if (name == "--pty-fd")
            pty = std::atoi(value);
        else if (name == "--clock")
            clock = std::strtod(value, nullptr);
        else if (name == "--host-baud")
            host_baud = std::strtod(value, nullptr);
        else
            fail("unknown option " + name);
    }
    if (pty < 0 || clock <= 0 || host_baud <= 0)
        fail("--pty-fd, --clock and --host-baud are required");
    if (fcntl(pty, F_SETFL, fcntl(pty, F_GETFL) | O_NONBLOCK) < 0)
        fail("cannot make the pty non-blocking");
    const double bit = clock / host_baud;   // clocks per bit at the host's rate
    uint64_t check_every = static_cast<uint64_t>(clock * kCheckSeconds);
    if (check_every < 1)
        check_every = 1;

    VerilatedContext context;
    Vdut dut(&context);
    dut.clk = 0;
    dut.rst = 1;
    dut.rx = 1;
    dut.eval();
    dut.clk = 1;
    dut.eval();
    dut.clk = 0;
    dut.rst = 0;
    dut.eval();

    struct Stamped { uint8_t byte; double time; };
    std::deque<Stamped> to_send;     // read from the pty, for rx, with the time they came
    std::vector<uint8_t> to_write;   // received from tx, for the pty
    // The host's transmitter: the frame on rx and the clock it began.
    bool sending = false;
    uint16_t frame = 0;
    double frame_start = 0;
    // The host's receiver: the frame being sampled on tx.
    enum { kIdle, kFrame, kBreak } receiving = kIdle;
    double receive_start = 0;
    unsigned next_sample = 0;
    unsigned received = 0;

    uint64_t cycle = 0;
    double behind = 0, looked = 0;
    bool input_open = true;
    const auto began = std::chrono::steady_clock::now();
    auto now = [&]() {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    };
    // A frame may start once simulated time has reached its byte's stamp.
    auto ready = [&]() {
        return !to_send.empty() && cycle >= to_send.front().time * clock;
    };
    auto next_frame = [&]() {
        uint16_t bits = static_cast<uint16_t>((to_send.front().byte << 1) | (1u << 9));
        to_send.pop_front();
        return bits;
    };

    while (input_open) {
        if (cycle % check_every == 0) {
            // The pty: take all the host wrote, give what came back.
            uint8_t buffer[4096];
            ssize_t got;
            double stamp = looked;
            looked = now();
            while ((got = read(pty, buffer, sizeof buffer)) > 0)
                for (ssize_t index = 0; index < got; index++)
                    to_send.push_back({buffer[index], stamp});
            if (!to_write.empty()) {
                ssize_t put = write(pty, to_write.data(), to_write.size());
                if (put > 0)
                    to_write.erase(to_write.begin(), to_write.begin() + put);
            }
            // Wall time: sleep while ahead (waking for the host's bytes or the end of input).
            double simulated = cycle / clock;
            double wall = now();
            pollfd fds[2] = {{0, POLLIN, 0}, {pty, POLLIN, 0}};
            double lead = simulated - wall > kLeadSeconds ? simulated - wall : 0;
            timespec wait = {static_cast<time_t>(lead),
                             static_cast<long>((lead - static_cast<time_t>(lead)) * 1e9)};
            if (wall - simulated > behind)
                behind = wall - simulated;
            if (ppoll(fds, 2, &wait, nullptr) > 0 &&
                (fds[0].revents & (POLLIN | POLLHUP))) {
                char byte;
                if (read(0, &byte, 1) <= 0)
                    input_open = false;
            }
        }

        // The host's transmitter drives rx.
        if (!sending && ready()) {
            frame = next_frame();
            frame_start = cycle;
            sending = true;
        }
        if (sending) {
            unsigned index = static_cast<unsigned>((cycle - frame_start) / bit);
            if (index >= 10) {
                sending = false;
                dut.rx = 1;
                // A waiting frame starts where this one ends, not a clock later.
                if (ready()) {
                    frame = next_frame();
                    frame_start += 10 * bit;
                    sending = true;
                    index = static_cast<unsigned>((cycle - frame_start) / bit);
                }
            }
            if (sending)
                dut.rx = (frame >> index) & 1;
        }
        dut.eval();

        // The host's receiver samples tx in the middle of each bit.
        bool line = dut.tx;
        if (receiving == kIdle && !line) {
            receiving = kFrame;
            receive_start = cycle;
            next_sample = 0;
            received = 0;
        } else if (receiving == kFrame && cycle >= receive_start + (next_sample + 0.5) * bit) {
            if (next_sample == 0 && line) {
                receiving = kIdle;   // a glitch, not a start bit
            } else if (next_sample >= 1 && next_sample <= 8) {
                received |= static_cast<unsigned>(line) << (next_sample - 1);
            } else if (next_sample == 9) {
                to_write.push_back(line ? static_cast<uint8_t>(received) : 0);
                receiving = line ? kIdle : kBreak;
            }
            next_sample++;
        } else if (receiving == kBreak && line) {
            receiving = kIdle;
        }

        dut.clk = 1;
        dut.eval();
        dut.clk = 0;
        cycle++;
    }
    std::printf("overflow %d\nframing_error %d\ncycles %llu\nbehind_ms %.0f\n",
                static_cast<int>(dut.overflow), static_cast<int>(dut.framing_error),
                static_cast<unsigned long long>(cycle), behind * 1000);
    dut.final();
    return 0;
}
