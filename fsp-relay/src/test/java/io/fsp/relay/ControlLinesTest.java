package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The replies {@code fsp-relay join} reads from a server it does not trust yet: folded, bounded, or refused. */
class ControlLinesTest {
    private static ControlLines of(String text) {
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    private static ControlLines of(byte[] bytes) {
        return new ControlLines(new ByteArrayInputStream(bytes), new ByteArrayOutputStream());
    }

    @Test
    void readsSingleAndMultiLineReplies() throws IOException {
        ControlLines c = of("220-Welcome\r\n220-to FSP\r\n220 ready\r\n335 a b\n");
        assertEquals(new ControlLines.Reply(220, "ready"), c.read());
        assertEquals(new ControlLines.Reply(335, "a b"), c.read());
    }

    @Test
    void refusesWhatIsNotAReplyOrTooLong() {
        assertThrows(IOException.class, () -> of("hello\r\n").read());
        assertThrows(IOException.class, () -> of("220 " + "x".repeat(20_000) + "\r\n").read());
        assertThrows(IOException.class, () -> of("220-a\r\n" + "more\r\n".repeat(200)).read());
        assertThrows(IOException.class, () -> of("220 cut").read());
    }

    /** Any bytes give replies or an IOException, never another exception, and end. */
    @Test
    void anyBytesAreReadOrRefused() {
        Random random = new Random(45);
        for (int i = 0; i < 2000; i++) {
            byte[] b = new byte[random.nextInt(200)];
            random.nextBytes(b);
            if (i % 2 == 0 && b.length > 4) { // some that start as replies do
                b[0] = '2';
                b[1] = '2';
                b[2] = '0';
                b[3] = (byte) (random.nextBoolean() ? '-' : ' ');
            }
            ControlLines c = of(b);
            try {
                for (int n = 0; n < 300; n++) {
                    c.read();
                }
            } catch (IOException expected) {
                // refused, or the end of the bytes
            }
        }
    }
}
