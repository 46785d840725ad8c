package io.fsp.crypto;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fsp.client.write.FailingDisk;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A key file is on disk when {@link KeyFiles#write} returns: a disk that cannot store it makes it fail. */
class KeyFilesDurabilityTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aKeyTheDiskCannotStoreIsAnError() throws Exception {
        assumeTrue(FailingDisk.root(), "mounting a loop ext4 image needs root: skipped");
        try (FailingDisk disk = FailingDisk.mount(dir, dir.resolve("i43sync-keys"))) {
            Path healthy = disk.mountPoint().resolve("before.key");
            KeyFiles.write(healthy, true, false, w -> w.write("written while the disk had room\n"));
            disk.fillBacking();
            Path key = disk.mountPoint().resolve("identity.key");
            assertThrows(IOException.class,
                    () -> KeyFiles.write(key, true, false, w -> w.write("x".repeat(64 << 10))));
            assertTrue(Files.exists(healthy), "the same disk stored a key while it had room");
        }
    }
}
