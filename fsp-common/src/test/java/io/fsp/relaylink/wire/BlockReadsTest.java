package io.fsp.relaylink.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.token.TransferId;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A clear link's reads over real loopback sockets: block bytes go straight into the block's buffer, frames intact. */
class BlockReadsTest {
    private static final TransferId T = TransferId.parse("0011223344556677");
    private static final byte[] SECRET = ClearLink.random(ClearLink.SECRET_LENGTH);
    private static EventLoopGroup group;

    @BeforeAll
    static void start() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Counts the bytes that were read into the channel allocator's own buffers (not into a block's). */
    private static final class Counting implements RecvByteBufAllocator {
        final AtomicLong viaAllocator = new AtomicLong();
        private final RecvByteBufAllocator delegate = new AdaptiveRecvByteBufAllocator();

        @Override
        public Handle newHandle() {
            return new DelegatingHandle(delegate.newHandle()) {
                private boolean allocated;

                @Override
                public ByteBuf allocate(ByteBufAllocator alloc) {
                    allocated = true;
                    return super.allocate(alloc);
                }

                @Override
                public void lastBytesRead(int bytes) {
                    if (allocated && bytes > 0) {
                        viaAllocator.addAndGet(bytes);
                    }
                    allocated = false;
                    super.lastBytesRead(bytes);
                }
            };
        }
    }

    /** A relay-like end: auto-read off, one read asked for at the start and after every message, as relays do. */
    private record Receiver(Channel server, BlockingQueue<Object> got, Counting counting) { }

    private static Receiver receiver(boolean autoRead) throws InterruptedException {
        BlockingQueue<Object> got = new LinkedBlockingQueue<>();
        Counting counting = new Counting();
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, autoRead)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, counting)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RelayFrameDecoder decoder = new RelayFrameDecoder(RelayLimits.DEFAULT, true, ClearLink.toRelay(SECRET));
                        BlockReads.install(ch).into(decoder);
                        ch.pipeline().addLast(decoder, new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext ctx) {
                                ctx.read();
                            }

                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                if (msg instanceof RelayMessage.PutBlock p) {
                                    got.add(new Decoded(p.seq(), ByteBufUtil.getBytes(p.content())));
                                    p.release();
                                } else {
                                    got.add(msg);
                                }
                                ctx.read();
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                got.add(cause);
                                ctx.close();
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        return new Receiver(server, got, counting);
    }

    private record Decoded(long seq, byte[] bytes) { }

    /** Blocks of several sizes with control frames between them, written in uneven pieces with pauses. */
    @ParameterizedTest(name = "auto-read {0}")
    @ValueSource(booleans = {true, false})
    void blocksArriveWholeAndTheirBytesSkipTheReadBuffers(boolean autoRead) throws Exception {
        Random random = new Random(7);
        List<byte[]> blocks = List.of(bytes(random, 1 << 20), bytes(random, 300_000), bytes(random, 1),
                bytes(random, (1 << 20) + 4096), bytes(random, 70_000));
        List<RelayMessage> messages = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            messages.add(new RelayMessage.PutBlock(2 * i + 1, T, i, Unpooled.wrappedBuffer(blocks.get(i))));
            messages.add(new RelayMessage.Ok(2 * i + 2));
        }
        byte[] wire = tagged(messages);
        Receiver r = receiver(autoRead);
        try (Socket s = new Socket("127.0.0.1", ((InetSocketAddress) r.server().localAddress()).getPort())) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            int[] pieces = {21, 1000, 3, 65_536, 400_000, 7, 250_000};
            for (int at = 0, i = 0; at < wire.length; i++) {
                int n = Math.min(pieces[i % pieces.length], wire.length - at);
                out.write(wire, at, n);
                out.flush();
                at += n;
                if (i % 3 == 0) {
                    Thread.sleep(2); // let the receiver read what is there: frames arrive in parts
                }
            }
            for (int i = 0; i < blocks.size(); i++) {
                Object block = r.got().poll(10, TimeUnit.SECONDS);
                Decoded d = assertInstanceOf(Decoded.class, block, "block " + i);
                assertEquals(i, d.seq());
                assertArrayEquals(blocks.get(i), d.bytes(), "block " + i);
                assertEquals(new RelayMessage.Ok(2 * i + 2), r.got().poll(10, TimeUnit.SECONDS));
            }
        } finally {
            r.server().close().sync();
        }
        long blockBytes = blocks.stream().mapToLong(b -> b.length).sum();
        long viaAllocator = r.counting().viaAllocator.get();
        assertTrue(viaAllocator < blockBytes / 2, viaAllocator + " of the stream's " + wire.length
                + " bytes were read into the allocator's buffers: the blocks' " + blockBytes + " should mostly not be");
    }

    @ParameterizedTest(name = "auto-read {0}")
    @ValueSource(booleans = {true, false})
    void aChangedTagOnABlockReadIntoItsBufferEndsTheLink(boolean autoRead) throws Exception {
        byte[] block = bytes(new Random(8), 1 << 20);
        byte[] wire = tagged(List.of(new RelayMessage.PutBlock(1, T, 0, Unpooled.wrappedBuffer(block))));
        wire[RelayFrame.HEADER_LENGTH] ^= 1; // the tag's first byte
        Receiver r = receiver(autoRead);
        try (Socket s = new Socket("127.0.0.1", ((InetSocketAddress) r.server().localAddress()).getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(wire, 0, 1000); // the header and the start: the rest is read into the block's buffer
            out.flush();
            Thread.sleep(20);
            out.write(wire, 1000, wire.length - 1000);
            out.flush();
            Object first = r.got().poll(10, TimeUnit.SECONDS);
            assertNotNull(first, "no verdict on the changed frame");
            assertInstanceOf(io.netty.handler.codec.CorruptedFrameException.class, first);
            assertTrue(((Throwable) first).getMessage().contains("tag does not match"), ((Throwable) first).getMessage());
        } finally {
            r.server().close().sync();
        }
        assertFalse(r.got().stream().anyMatch(o -> o instanceof Decoded), "a block with a changed tag was passed on");
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] tagged(List<RelayMessage> messages) {
        return RelayFrameCodecTest.encode(new RelayFrameEncoder(ClearLink.toRelay(SECRET)), messages);
    }
}
