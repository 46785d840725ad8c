package io.fsp.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponse;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzzing of the metrics endpoint's request handling (Netty's HTTP decoder with the endpoint's
 * limits, then the endpoint's answer), in any two pieces: never an exception out of the pipeline, at most one
 * answer, always 200, 400, 404 or 405 and the connection closed after it, 200 only for a request that is
 * {@code GET /metrics}, every buffer released.
 */
class MetricsEndpointFuzzTest {
    private static final PrometheusRegistry REGISTRY = new PrometheusRegistry();
    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();

    static {
        Counter.builder().name("fsp_fuzz_things").help("Things").register(REGISTRY).inc();
    }

    @FuzzTest(maxDuration = "5s")
    void answersAtMostOnceAndNeverCrashes(byte[] input) {
        int split = input.length == 0 ? 0 : (input[0] & 0xff) % (input.length + 1);
        List<Integer> answers = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel();
        MetricsEndpoint.serve(ch.pipeline(), REGISTRY, WRITER);
        ch.pipeline().addAfter(ch.pipeline().firstContext().name(), "answers", new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (msg instanceof HttpResponse r) {
                    answers.add(r.status().code());
                }
                ctx.write(msg, promise);
            }
        });
        ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(input, 0, split)));
        if (ch.isOpen()) {
            ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(input, split, input.length)));
        }
        ch.runPendingTasks();
        ch.checkException();
        assertTrue(answers.size() <= 1, "answers: " + answers);
        if (!answers.isEmpty()) {
            assertTrue(Set.of(200, 400, 404, 405).contains(answers.get(0)), "answer: " + answers);
            assertFalse(ch.isOpen(), "closed after its answer");
            if (answers.get(0) == 200) {
                String request = new String(input, StandardCharsets.ISO_8859_1);
                int start = 0;
                while (start < request.length() && (Character.isISOControl(request.charAt(start))
                        || Character.isWhitespace(request.charAt(start)))) {
                    start++; // the decoder skips these before a request line
                }
                String[] line = request.substring(start).split("[\\x00-\\x20]+", 3); // the decoder splits leniently
                assertTrue(line.length >= 2 && line[0].equals("GET")
                        && (line[1].equals("/metrics") || line[1].startsWith("/metrics?")), request);
            }
        }
        ch.finishAndReleaseAll();
        assertEquals(0, ch.inboundMessages().size() + ch.outboundMessages().size());
    }
}
