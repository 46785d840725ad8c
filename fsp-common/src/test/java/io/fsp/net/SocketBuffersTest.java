package io.fsp.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;

class SocketBuffersTest {
    @Test
    void noSizeLeavesBothBuffersToTheKernel() {
        Bootstrap b = SocketBuffers.apply(new Bootstrap(), 0);
        assertFalse(b.config().options().containsKey(ChannelOption.SO_RCVBUF));
        assertFalse(b.config().options().containsKey(ChannelOption.SO_SNDBUF));
        ServerBootstrap s = SocketBuffers.applyToAccepted(new ServerBootstrap(), 0);
        assertTrue(s.config().options().isEmpty());
        assertTrue(s.config().childOptions().isEmpty());
    }

    @Test
    void aSizeFixesBothBuffers() {
        Bootstrap b = SocketBuffers.apply(new Bootstrap(), 8 << 20);
        assertEquals(8 << 20, b.config().options().get(ChannelOption.SO_RCVBUF));
        assertEquals(8 << 20, b.config().options().get(ChannelOption.SO_SNDBUF));
        ServerBootstrap s = SocketBuffers.applyToAccepted(new ServerBootstrap(), 8 << 20);
        assertEquals(8 << 20, s.config().options().get(ChannelOption.SO_RCVBUF));
        assertEquals(8 << 20, s.config().childOptions().get(ChannelOption.SO_RCVBUF));
        assertEquals(8 << 20, s.config().childOptions().get(ChannelOption.SO_SNDBUF));
    }

    @Test
    void checkAcceptsZeroAndSaneSizesOnly() {
        assertEquals(0, SocketBuffers.check("socket-buffer", 0));
        assertEquals(4096, SocketBuffers.check("socket-buffer", 4096));
        assertEquals(1 << 30, SocketBuffers.check("socket-buffer", 1L << 30));
        for (long bad : new long[] {-1, 1, 4095, (1L << 30) + 1, Long.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SocketBuffers.check("socket-buffer", bad));
            assertTrue(e.getMessage().startsWith("socket-buffer: " + bad + " (expected: 0"), e.getMessage());
        }
    }
}
