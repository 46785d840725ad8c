package io.fsp.relaylink.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The frame table: one kind per type byte and per message class, found both ways. */
class RelayFrameTest {
    @Test
    void eachTypeByteAndClassNamesOneFrame() {
        for (RelayFrame f : RelayFrame.values()) {
            assertSame(f, RelayFrame.ofWire(f.wire()));
        }
        assertEquals(RelayFrame.values().length, Arrays.stream(RelayFrame.values()).map(RelayFrame::message).distinct().count());
        assertNull(RelayFrame.ofWire(0x00));
        assertNull(RelayFrame.ofWire(0x7F));
    }

    @Test
    void messagesFindTheirFrame() {
        assertSame(RelayFrame.OK, RelayFrame.of(new RelayMessage.Ok(1)));
        assertSame(RelayFrame.STATUS, RelayFrame.of(new RelayMessage.StatusRequest(1, new io.fsp.token.TransferId(2))));
    }
}
