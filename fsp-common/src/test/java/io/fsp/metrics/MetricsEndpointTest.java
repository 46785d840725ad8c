package io.fsp.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scrape endpoint over real sockets: GET /metrics only, bounded requests and connections. */
class MetricsEndpointTest {
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private MetricsEndpoint endpoint;

    @BeforeEach
    void start() throws IOException {
        Counter c = Counter.builder().name("fsp_test_things").help("Things").register(registry);
        c.inc(42);
        endpoint = MetricsEndpoint.start(new InetSocketAddress("127.0.0.1", 0), registry);
    }

    @AfterEach
    void stop() {
        endpoint.close();
    }

    @Test
    void getMetricsAnswersThePrometheusTextFormat() throws IOException {
        String response = exchange("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(response.startsWith("HTTP/1.1 200 OK\r\n"), response);
        assertTrue(response.contains("content-type: text/plain; version=0.0.4"), response);
        assertTrue(response.contains("\nfsp_test_things_total 42.0\n"), response);
        assertTrue(exchange("GET /metrics?name[]=x HTTP/1.0\r\n\r\n").startsWith("HTTP/1.1 200 OK"));
    }

    @Test
    void otherPathsAndMethodsAreRefused() throws IOException {
        assertStatus(404, exchange("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertStatus(404, exchange("GET /metrics/x HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertStatus(404, exchange("GET /../metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
        String post = exchange("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
        assertStatus(405, post);
        assertTrue(post.contains("allow: GET"), post);
        assertStatus(405, exchange("PUT /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertStatus(405, exchange("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
    }

    @Test
    void oversizedRequestsAreRefusedWithoutReadingThem() throws IOException {
        assertStatus(400, exchange("GET /" + "m".repeat(MetricsEndpoint.MAX_REQUEST_LINE) + " HTTP/1.1\r\n\r\n"));
        assertStatus(400, exchange("GET /metrics HTTP/1.1\r\nX: " + "h".repeat(MetricsEndpoint.MAX_HEADERS)
                + "\r\n\r\n"));
    }

    @Test
    void atMostFourConnectionsAtOnce() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < MetricsEndpoint.MAX_CONNECTIONS; i++) {
                Socket s = connect();
                s.getOutputStream().write("GET /met".getBytes(StandardCharsets.US_ASCII)); // never finished
                held.add(s);
            }
            Thread.sleep(200);
            try (Socket extra = connect()) {
                extra.getOutputStream().write("GET /metrics HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertEquals("", readAll(extra.getInputStream()), "closed at once, unanswered");
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        Thread.sleep(200);
        assertStatus(200, exchange("GET /metrics HTTP/1.1\r\n\r\n"));
    }

    /** Random bytes after a request line's start: each connection is answered 400, 404 or 405, or closed. */
    @Test
    void garbageIsAnsweredOrClosedNeverServed() throws IOException {
        Random random = new Random(16);
        String[] starts = {"", "GET ", "GET /metrics", "GET /metrics HTTP/1.1\r\n", "\r\n"};
        for (int i = 0; i < 200; i++) {
            byte[] junk = new byte[random.nextInt(3000)];
            random.nextBytes(junk);
            String response;
            try (Socket s = connect()) {
                OutputStream out = s.getOutputStream();
                out.write(starts[i % starts.length].getBytes(StandardCharsets.ISO_8859_1));
                try {
                    out.write(junk);
                    s.shutdownOutput();
                } catch (IOException closedMeanwhile) {
                    // refused before all was sent
                }
                response = readAll(s.getInputStream());
            }
            assertTrue(response.isEmpty() || response.matches("(?s)HTTP/1\\.1 (400|404|405) .*"), response);
        }
        assertStatus(200, exchange("GET /metrics HTTP/1.1\r\n\r\n"));
    }

    private static void assertStatus(int status, String response) {
        assertTrue(response.startsWith("HTTP/1.1 " + status + " "), response);
        assertTrue(response.contains("connection: close"), response);
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(endpoint.address().getAddress(), endpoint.address().getPort());
        s.setSoTimeout(15_000);
        return s;
    }

    private String exchange(String request) throws IOException {
        try (Socket s = connect()) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            return readAll(s.getInputStream());
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try {
            in.transferTo(b);
        } catch (java.net.SocketException reset) {
            // a refused connection may be reset rather than closed
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
