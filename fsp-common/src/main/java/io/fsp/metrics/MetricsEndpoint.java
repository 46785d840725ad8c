package io.fsp.metrics;

import io.fsp.net.AddressPrefix;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Prometheus scrape endpoint: {@code GET /metrics} answers the registry in the Prometheus text format; any other
 * path is 404, any other method 405, a request the HTTP decoder refuses (a request line over {@value
 * #MAX_REQUEST_LINE} bytes, headers over {@value #MAX_HEADERS} bytes) 400. Every answer closes its connection.
 * At most {@value #MAX_CONNECTIONS} connections at once, {@value #MAX_PER_HOST} from one host (an IPv4 address, an
 * IPv6 /64); one more is closed as soon as it is accepted. Each connection is closed {@value #TIMEOUT_MILLIS} ms
 * after it was accepted, answered or not: a scraper sends its request at once, so a peer trickling its request
 * holds a slot for no longer than that, and blinding the scraper takes connections from more than {@value
 * #MAX_CONNECTIONS} / {@value #MAX_PER_HOST} hosts. A peer that can reach the port costs a few small buffers and
 * one thread. It is plain HTTP without authentication, as Prometheus scrapes: bind it to an address only the
 * scraper reaches.
 */
public final class MetricsEndpoint implements AutoCloseable {
    static final int MAX_CONNECTIONS = 16;
    static final int MAX_PER_HOST = 2;
    static final int MAX_REQUEST_LINE = 1024;
    static final int MAX_HEADERS = 8192;
    static final int TIMEOUT_MILLIS = 2000;
    public static final String PATH = "/metrics";
    private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

    private final EventLoopGroup loop;
    private final Channel listener;

    private MetricsEndpoint(EventLoopGroup loop, Channel listener) {
        this.loop = loop;
        this.listener = listener;
    }

    /** Listens on {@code bind} (port 0: any free port) and serves {@code registry}; fails if it cannot bind. */
    public static MetricsEndpoint start(InetSocketAddress bind, PrometheusRegistry registry) throws IOException {
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("fsp-metrics", true),
                NioIoHandler.newFactory());
        // Touched on the loop's one thread only.
        int[] connections = {0};
        Map<InetAddress, Integer> byHost = new HashMap<>();
        PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
        try {
            Channel listener = new ServerBootstrap().group(loop).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            InetAddress host = AddressPrefix.host(ch.remoteAddress().getAddress());
                            if (connections[0] >= MAX_CONNECTIONS || byHost.getOrDefault(host, 0) >= MAX_PER_HOST) {
                                ch.close();
                                return;
                            }
                            connections[0]++;
                            byHost.merge(host, 1, Integer::sum);
                            ScheduledFuture<?> deadline = ch.eventLoop().schedule((Runnable) ch::close, TIMEOUT_MILLIS,
                                    TimeUnit.MILLISECONDS);
                            ch.closeFuture().addListener(f -> {
                                deadline.cancel(false);
                                connections[0]--;
                                byHost.computeIfPresent(host, (h, n) -> n <= 1 ? null : n - 1);
                            });
                            serve(ch.pipeline(), registry, writer);
                        }
                    })
                    .bind(bind).syncUninterruptibly().channel();
            MetricsEndpoint endpoint = new MetricsEndpoint(loop, listener);
            log.info("metrics on http://{}:{}{}", endpoint.address().getAddress().getHostAddress(),
                    endpoint.address().getPort(), PATH);
            return endpoint;
        } catch (RuntimeException e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException("metrics " + bind.getHostString() + ":" + bind.getPort() + ": cannot bind ("
                    + e.getMessage() + ")", e);
        }
    }

    /** The HTTP part of a connection's pipeline: the request decoder with its limits, and the answer. */
    static void serve(ChannelPipeline pipeline, PrometheusRegistry registry, PrometheusTextFormatWriter writer) {
        pipeline.addLast(new HttpServerCodec(MAX_REQUEST_LINE, MAX_HEADERS, MAX_HEADERS))
                .addLast(new Scrape(registry, writer));
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Answers the first request of a connection and closes it; what follows the request line is not read. */
    static final class Scrape extends SimpleChannelInboundHandler<HttpObject> {
        private final PrometheusRegistry registry;
        private final PrometheusTextFormatWriter writer;
        private boolean answered;

        Scrape(PrometheusRegistry registry, PrometheusTextFormatWriter writer) {
            this.registry = registry;
            this.writer = writer;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws IOException {
            if (answered || !(msg instanceof HttpRequest request)) {
                return;
            }
            answered = true;
            ctx.channel().config().setAutoRead(false);
            FullHttpResponse response;
            if (request.decoderResult().isFailure()) {
                response = text(HttpResponseStatus.BAD_REQUEST, "bad request: "
                        + request.decoderResult().cause().getMessage());
            } else if (!request.method().equals(HttpMethod.GET)) {
                response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET " + PATH);
                response.headers().set(HttpHeaderNames.ALLOW, "GET");
            } else if (!path(request.uri()).equals(PATH)) {
                response = text(HttpResponseStatus.NOT_FOUND, "only GET " + PATH);
            } else {
                ByteBuf body = ctx.alloc().buffer();
                try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
                    writer.write(out, registry.scrape());
                } catch (IOException | RuntimeException e) {
                    body.release();
                    throw e;
                }
                response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, writer.getContentType());
            }
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("metrics connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }

        private static String path(String uri) {
            int q = uri.indexOf('?');
            return q < 0 ? uri : uri.substring(0, q);
        }

        private static FullHttpResponse text(HttpResponseStatus status, String text) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    io.netty.buffer.Unpooled.copiedBuffer(text + "\n", StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
            return r;
        }
    }
}
