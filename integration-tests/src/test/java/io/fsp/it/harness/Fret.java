package io.fsp.it.harness;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.Reply;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** A FRET on a raw control channel, for tests that look at the announcements themselves. */
public final class Fret {
    private Fret() {
    }

    /** FRET {@code path} on {@code c}: its {@code 151} lines (without {@code 151 }), read up to the 226. */
    public static List<String> announcements(ControlChannel c, String path) throws IOException {
        ControlChannel.expect(c.command("FRET " + path), 150, "FRET");
        List<String> lines = new ArrayList<>();
        Reply r;
        while ((r = c.read()).code() == 151) {
            lines.add(r.text());
        }
        ControlChannel.expect(r, 226, "FRET");
        return lines;
    }
}
