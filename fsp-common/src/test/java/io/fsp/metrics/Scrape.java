package io.fsp.metrics;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** One scrape of a metrics endpoint over HTTP: each sample's value by its series, e.g. {@code x_total{code="A"}}. */
public record Scrape(Map<String, Double> samples) {
    public static Scrape of(InetSocketAddress endpoint) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.getPort() + "/metrics"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("scrape: HTTP " + r.statusCode() + ": " + r.body());
        }
        Map<String, Double> samples = new HashMap<>();
        for (String line : r.body().split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                int space = line.lastIndexOf(' ');
                samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return new Scrape(samples);
    }

    /** The value of {@code series}; fails if the scrape has no such series. */
    public double get(String series) {
        Double v = samples.get(series);
        if (v == null) {
            throw new AssertionError("no series " + series + " in " + new java.util.TreeMap<>(samples).keySet());
        }
        return v;
    }
}
