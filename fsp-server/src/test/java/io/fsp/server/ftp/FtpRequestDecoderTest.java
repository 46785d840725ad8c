package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fsp.ftp.ReplyCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FtpRequestDecoderTest {
    private static final int LIMIT = 100;
    private EmbeddedChannel ch;

    @BeforeEach
    void setUp() {
        ch = new EmbeddedChannel(new FtpRequestDecoder(LIMIT));
    }

    @AfterEach
    void tearDown() {
        assertFalse(ch.finish(), "no request may be left over");
    }

    private void write(byte[] bytes) {
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
    }

    private void write(String s) {
        write(s.getBytes(StandardCharsets.UTF_8));
    }

    private FtpRequestLine read() {
        return ch.readInbound();
    }

    @Test
    void decodesVerbInUpperCaseAndKeepsArgumentExactly() {
        write("retr  my file.txt \r\n");
        assertEquals(new FtpRequest("RETR", " my file.txt "), read());
    }

    @Test
    void decodesEveryCommandSplitAtEveryByteOffset() {
        byte[] bytes = "USER alice\r\nPASS s3cr3t\r\nNOOP\r\n".getBytes(StandardCharsets.US_ASCII);
        for (int split = 1; split < bytes.length; split++) {
            ch.writeInbound(Unpooled.wrappedBuffer(bytes, 0, split));
            ch.writeInbound(Unpooled.wrappedBuffer(bytes, split, bytes.length - split));
            assertEquals(new FtpRequest("USER", "alice"), read(), "split at " + split);
            assertEquals(new FtpRequest("PASS", "s3cr3t"), read(), "split at " + split);
            assertEquals(new FtpRequest("NOOP", ""), read(), "split at " + split);
            assertNull(read());
        }
    }

    @Test
    void acceptsBareLineFeed() {
        write("NOOP\nSYST\n");
        assertEquals(new FtpRequest("NOOP", ""), read());
        assertEquals(new FtpRequest("SYST", ""), read());
    }

    @Test
    void decodesUtf8PathNames() {
        write("CWD Ünïcødé/日本\r\n");
        assertEquals(new FtpRequest("CWD", "Ünïcødé/日本"), read());
    }

    @Test
    void answersLineLongerThanLimitOnceAndKeepsDecoding() {
        write("STOR " + "x".repeat(LIMIT) + "\r\nNOOP\r\n");
        MalformedRequest tooLong = assertInstanceOf(MalformedRequest.class, read());
        assertEquals(ReplyCode.SYNTAX_ERROR, tooLong.reply().code());
        assertEquals(new FtpRequest("NOOP", ""), read());
    }

    @Test
    void discardsEndlessLineWithoutBufferingIt() {
        ByteBuf chunk = Unpooled.wrappedBuffer("y".repeat(1000).getBytes(StandardCharsets.US_ASCII));
        write("RETR ");
        for (int i = 0; i < 100; i++) {
            ch.writeInbound(chunk.retainedDuplicate());
        }
        chunk.release();
        assertInstanceOf(MalformedRequest.class, read());
        assertNull(read(), "one reply per long line");
        write("\r\nQUIT\r\n");
        assertEquals(new FtpRequest("QUIT", ""), read());
    }

    @Test
    void acceptsLineOfExactlyTheLimit() {
        String line = "RETR " + "z".repeat(LIMIT - 5);
        write(line + "\r\n");
        assertEquals(new FtpRequest("RETR", "z".repeat(LIMIT - 5)), read());
    }

    @ParameterizedTest
    @ValueSource(strings = {"C3 28", "A0 A1", "E2 28 A1", "F0 90 28 BC", "C0 AF", "ED A0 80"})
    void answersMalformedUtf8With501(String hex) {
        byte[] bad = java.util.HexFormat.ofDelimiter(" ").parseHex(hex);
        byte[] line = new byte[5 + bad.length + 2];
        System.arraycopy("RETR ".getBytes(StandardCharsets.US_ASCII), 0, line, 0, 5);
        System.arraycopy(bad, 0, line, 5, bad.length);
        line[line.length - 2] = '\r';
        line[line.length - 1] = '\n';
        write(line);
        MalformedRequest m = assertInstanceOf(MalformedRequest.class, read());
        assertEquals(ReplyCode.SYNTAX_ERROR_IN_ARGUMENTS, m.reply().code());
        write("NOOP\r\n");
        assertEquals(new FtpRequest("NOOP", ""), read());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"''|500", "'   '|500", "'3RTR x'|500", "'RE-TR x'|500", "'XSHA²56 x'|500",
        "'ABCDEFGHIJKLMNOPQRS'|500"})
    void answersLinesWithoutVerb(String line, int code) {
        write(line + "\r\n");
        MalformedRequest m = assertInstanceOf(MalformedRequest.class, read());
        assertEquals(code, m.reply().code().value());
    }

    @Test
    void readsVerbsWithDigitsAfterTheFirstLetter() {
        write("XSHA256 a.bin\r\nxsha512 \"a b\" 0 1\r\n");
        assertEquals(new FtpRequest("XSHA256", "a.bin"), read());
        assertEquals(new FtpRequest("XSHA512", "\"a b\" 0 1"), read());
    }

    @Test
    void stripsTelnetInterruptAndSynchBeforeAbor() {
        // IAC IP IAC DM ABOR, and the form where the kernel took the urgent DM byte out of the stream.
        write(new byte[] {(byte) 0xFF, (byte) 0xF4, (byte) 0xFF, (byte) 0xF2, 'A', 'B', 'O', 'R', '\r', '\n'});
        write(new byte[] {(byte) 0xFF, (byte) 0xF4, (byte) 0xFF, 'A', 'B', 'O', 'R', '\r', '\n'});
        assertEquals(new FtpRequest("ABOR", ""), read());
        assertEquals(new FtpRequest("ABOR", ""), read());
    }

    @Test
    void refusesNulInArgument() {
        write("RETR a\0b\r\n");
        assertEquals(ReplyCode.SYNTAX_ERROR_IN_ARGUMENTS, assertInstanceOf(MalformedRequest.class, read()).reply().code());
    }

    @Test
    void masksPasswordWhenLogged() {
        assertEquals("PASS ****", new FtpRequest("PASS", "secret").toString());
    }
}
