package io.fsp.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The scrape endpoint over real sockets: GET /metrics only, bounded requests and connections, by host and in time. */
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
    void atMostTwoConnectionsFromOneHostAndSixteenInAll() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < MetricsEndpoint.MAX_CONNECTIONS; i++) {
                Socket s = connect("127.0.1." + (1 + i / MetricsEndpoint.MAX_PER_HOST));
                s.getOutputStream().write("GET /met".getBytes(StandardCharsets.US_ASCII)); // never finished
                held.add(s);
            }
            Thread.sleep(200);
            assertEquals("", exchange("127.0.1.1", "GET /metrics HTTP/1.1\r\n\r\n"),
                    "a third from one host is closed at once, unanswered");
            assertEquals("", exchange("127.0.2.1", "GET /metrics HTTP/1.1\r\n\r\n"), "one more in all, too");
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        Thread.sleep(200);
        assertStatus(200, exchange("GET /metrics HTTP/1.1\r\n\r\n"));
    }

    /**
     * Connections that trickle a request, a byte every 200 ms, from as many hosts as once took every slot: the scraper
     * is answered meanwhile, and each of them is closed once its time is up, however busy it keeps.
     */
    @Test
    void slowClientsNeitherBlindTheScraperNorHoldASlotForLong() throws Exception {
        List<Socket> slow = new ArrayList<>();
        try {
            long start = System.nanoTime();
            for (int host = 2; host <= 5; host++) {
                for (int i = 0; i < MetricsEndpoint.MAX_PER_HOST; i++) {
                    Socket s = connect("127.0.0." + host);
                    s.getOutputStream().write("GET /met".getBytes(StandardCharsets.US_ASCII));
                    slow.add(s);
                }
            }
            Thread.sleep(200);
            assertStatus(200, exchange("GET /metrics HTTP/1.1\r\n\r\n"));
            List<Socket> open = new ArrayList<>(slow);
            long deadline = start + TimeUnit.MILLISECONDS.toNanos(MetricsEndpoint.TIMEOUT_MILLIS + 3000);
            while (!open.isEmpty() && System.nanoTime() < deadline) {
                open.removeIf(MetricsEndpointTest::closedByPeer);
                for (Socket s : open) {
                    try {
                        s.getOutputStream().write('t');
                    } catch (IOException closing) {
                        // closed meanwhile: the next round sees it
                    }
                }
                Thread.sleep(200);
            }
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(open.isEmpty(), open.size() + " trickling connections still open after " + took + " ms");
            assertTrue(took >= MetricsEndpoint.TIMEOUT_MILLIS - 200, "closed after " + took + " ms");
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    /** Whether the endpoint closed {@code s}: end of stream or a reset; false while it is open and silent. */
    private static boolean closedByPeer(Socket s) {
        try {
            s.setSoTimeout(1);
            return s.getInputStream().read() == -1;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (IOException reset) {
            return true;
        }
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
        return connect("127.0.0.1");
    }

    /** A connection from {@code from}: any 127.x.y.z address reaches the endpoint over loopback. */
    private Socket connect(String from) throws IOException {
        Socket s = new Socket(endpoint.address().getAddress(), endpoint.address().getPort(), InetAddress.getByName(from), 0);
        s.setSoTimeout(15_000);
        return s;
    }

    private String exchange(String request) throws IOException {
        return exchange("127.0.0.1", request);
    }

    private String exchange(String from, String request) throws IOException {
        try (Socket s = connect(from)) {
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
