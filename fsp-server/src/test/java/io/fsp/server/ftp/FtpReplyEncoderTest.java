package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.fsp.ftp.ReplyCode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class FtpReplyEncoderTest {
    private static String encode(FtpReply reply) {
        EmbeddedChannel ch = new EmbeddedChannel(new FtpReplyEncoder());
        ch.writeOutbound(reply);
        ByteBuf out = ch.readOutbound();
        String s = out.toString(StandardCharsets.UTF_8);
        out.release();
        assertFalse(ch.finish());
        return s;
    }

    @Test
    void writesSingleLineReply() {
        assertEquals("200 NOOP ok\r\n", encode(Replies.ok("NOOP ok")));
    }

    @Test
    void writesMultiLineReplyWithHyphenFirstAndSpaceLast() {
        FtpReply feat = new FtpReply(ReplyCode.SYSTEM_STATUS, List.of("Features:", " MDTM", " SIZE", "End"));
        assertEquals("211-Features:\r\n MDTM\r\n SIZE\r\n211 End\r\n", encode(feat));
    }

    @Test
    void indentsMiddleLineStartingWithDigitsSoItCannotEndTheReply() {
        FtpReply r = new FtpReply(ReplyCode.FILE_STATUS, List.of("Status:", "213 fake end", "End"));
        assertEquals("213-Status:\r\n 213 fake end\r\n213 End\r\n", encode(r));
    }

    @Test
    void replacesLineBreaksInsideText() {
        assertEquals("550 \"a b\": no such file or directory\r\n",
                encode(new FtpReply(ReplyCode.FILE_UNAVAILABLE, "\"a\nb\": no such file or directory")));
    }

    @Test
    void encodesUtf8() {
        assertEquals("257 \"/日本\" created\r\n", encode(new FtpReply(ReplyCode.PATH_CREATED, "\"/日本\" created")));
    }
}
