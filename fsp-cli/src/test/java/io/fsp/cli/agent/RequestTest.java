package io.fsp.cli.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The launcher-agent wire: a request and frames round-trip, and no input makes the decoder do anything but refuse. */
class RequestTest {
    private static final Request REQUEST = new Request("0123456789abcdef", "/home/u/work dir", true, 1_700_000_000_123L,
            4242, List.of("get", "fsp://alice@h:2121/a b", "-o", "ü.bin"), Map.of("FSP_PASSWORD", "s3cret", "HOME", "/home/u"));

    @Test
    void aRequestRoundTrips() throws IOException {
        assertEquals(REQUEST, Request.decode(REQUEST.encode()));
    }

    @Test
    void framesRoundTripAndAnOversizedOneIsRefused() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        Frames out = new Frames(new ByteArrayInputStream(new byte[0]), wire);
        out.write(Frames.HELLO, REQUEST.encode());
        out.writeExit(130);
        Frames in = new Frames(new ByteArrayInputStream(wire.toByteArray()), new ByteArrayOutputStream());
        assertEquals(REQUEST, Request.decode(in.read().payload()));
        assertEquals(130, in.read().exitCode());

        byte[] huge = {'O', 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        Frames bad = new Frames(new ByteArrayInputStream(huge), new ByteArrayOutputStream());
        assertThrows(IOException.class, bad::read);
    }

    @Test
    void variablesACommandDoesNotReadAreRefused() throws IOException {
        Request sneaky = new Request("k", "/", false, 0, 1, List.of(), Map.of("LD_PRELOAD", "/tmp/x.so"));
        assertThrows(IOException.class, () -> Request.decode(sneaky.encode()));
        Request relative = new Request("k", "work", false, 0, 1, List.of(), Map.of());
        assertThrows(IOException.class, () -> Request.decode(relative.encode()));
    }

    /** Random payloads and mutations of a good one: decoded or refused with an IOException, nothing else. */
    @Test
    void fuzzedPayloadsAreDecodedOrRefused() throws IOException {
        Random random = new Random(42);
        byte[] good = REQUEST.encode();
        for (int i = 0; i < 200_000; i++) {
            byte[] b;
            if (i % 2 == 0) {
                b = new byte[random.nextInt(64)];
                random.nextBytes(b);
            } else {
                b = good.clone();
                for (int m = random.nextInt(4); m >= 0; m--) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
                if (random.nextInt(8) == 0) {
                    b = java.util.Arrays.copyOf(b, random.nextInt(b.length));
                }
            }
            try {
                Request r = Request.decode(b);
                assertEquals(r, Request.decode(r.encode()), "what decodes encodes back the same");
            } catch (IOException refused) {
                // a clear refusal is what bad input gets
            }
        }
    }
}
