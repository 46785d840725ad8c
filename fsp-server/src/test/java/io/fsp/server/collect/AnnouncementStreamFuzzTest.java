package io.fsp.server.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fsp.client.collect.RecordedTransfer;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.server.select.CollectRelay;
import io.fsp.server.select.CollectRelays;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of FCOL's announcement stream ({@link AnnouncementStream}): any bytes, in any pieces,
 * are read or refused with {@link IllegalArgumentException} naming the stream or its line, never anything else; what
 * is read starts with the FSP line and writes back to its lines. {@code mvn verify} fuzzes it for a bounded time
 * (the {@code fuzz-announcement-stream} execution in this module's pom); plain test runs replay the inputs in
 * {@code AnnouncementStreamFuzzTestInputs}.
 */
class AnnouncementStreamFuzzTest {
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void readsOrRefusesAnyStream(FuzzedDataProvider data) {
        int piece = data.consumeInt(1, 64);
        byte[] bytes = data.consumeRemainingAsBytes();
        AnnouncementStream stream = new AnnouncementStream(1 << 16, 1000,
                new CollectRelays(List.of(), List.of(CollectRelay.parse("127.0.0.1:7001")), Set.of()));
        try {
            for (int i = 0; i < bytes.length; i += piece) {
                stream.feed(ByteBuffer.wrap(bytes, i, Math.min(piece, bytes.length - i)));
            }
            RecordedTransfer t = stream.end();
            assertTrue(t.announcements().get(0) instanceof Announcement.Transfer);
            StringBuilder again = new StringBuilder();
            t.announcements().forEach(a -> again.append(ExtensionCodec.format(a)).append('\n'));
            String text = new String(bytes, StandardCharsets.UTF_8).replace("\r\n", "\n");
            assertEquals(text, again.toString(), "an accepted stream is exactly its announcements");
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage() != null && refused.getMessage().startsWith("announcement "), refused.getMessage());
        }
    }
}
