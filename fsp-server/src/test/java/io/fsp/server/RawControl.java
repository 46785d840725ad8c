package io.fsp.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A control connection driven line by line, for dialogues no FTP client library would produce. */
final class RawControl implements AutoCloseable {
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    RawControl(InetSocketAddress address) throws IOException {
        socket = new Socket();
        socket.connect(address, 5000);
        socket.setSoTimeout(10_000);
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        out = socket.getOutputStream();
    }

    /** Reads one whole reply (all lines of a multi-line reply); returns its last line, or null at EOF. */
    String reply() throws IOException {
        String line = in.readLine();
        if (line == null) {
            return null;
        }
        if (line.length() > 3 && line.charAt(3) == '-') {
            String code = line.substring(0, 3);
            do {
                line = in.readLine();
            } while (line != null && !(line.startsWith(code + " ")));
        }
        return line;
    }

    String send(String command) throws IOException {
        sendRaw((command + "\r\n").getBytes(StandardCharsets.UTF_8));
        return reply();
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Logs in as alice (the server must allow plain logins). */
    RawControl login() throws IOException {
        reply(); // 220
        send("USER alice");
        String r = send("PASS secret");
        if (!r.startsWith("230")) {
            throw new IOException("login failed: " + r);
        }
        return this;
    }

    /** Sends EPSV and returns the data port. */
    int epsv() throws IOException {
        String r = send("EPSV");
        if (!r.startsWith("229")) {
            throw new IOException("EPSV: " + r);
        }
        return Integer.parseInt(r.replaceAll(".*\\(\\|\\|\\|(\\d+)\\|\\).*", "$1"));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
