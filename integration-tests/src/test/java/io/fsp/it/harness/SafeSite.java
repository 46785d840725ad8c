package io.fsp.it.harness;

import io.fsp.crypto.RecipientKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The safe site of an evacuation under {@code dir}: its key pair ({@code keys/identity}, {@code keys/recipient.pub})
 * and where the sealed manifest is carried ({@code carry/evacuation.sealed}, its directory made).
 */
public record SafeSite(Path identity, Path recipient, Path manifest) {
    public static SafeSite under(Path dir) throws IOException {
        RecipientKey key = RecipientKey.generate("safe site");
        SafeSite site = new SafeSite(dir.resolve("keys/identity"), dir.resolve("keys/recipient.pub"),
                dir.resolve("carry/evacuation.sealed"));
        key.writeIdentity(site.identity(), false);
        key.writePublic(site.recipient(), false);
        Files.createDirectories(site.manifest().getParent());
        return site;
    }
}
