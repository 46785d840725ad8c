package io.fsp.extension;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One {@code 151} line of FRET (docs/protocol.md §1, "FSP extension"): the transfer, its key and token, the
 * relays, the directories and files, then one line per placed block. Each record checks its fields against
 * {@link ExtensionLimits} when it is made, so the server cannot announce what the client would refuse;
 * {@link ExtensionCodec} writes and reads them.
 */
public sealed interface Announcement {

    /**
     * {@code FSP <id> kind=file|directory files=N directories=N bytes=N blocks=N <options>}: what the transfer
     * holds and the options it runs with (as FSPO shows them; the client reads {@code checksum} and {@code digest}).
     */
    record Transfer(TransferId id, boolean directory, int files, int directories, long bytes, long blocks,
                    FspOptions options) implements Announcement {
        public Transfer {
            Objects.requireNonNull(id, "id");
            ExtensionCodec.check("files", files, 0, Integer.MAX_VALUE);
            ExtensionCodec.check("directories", directories, 0, Integer.MAX_VALUE);
            ExtensionCodec.check("bytes", bytes, 0, Long.MAX_VALUE);
            ExtensionCodec.check("blocks", blocks, 0, ExtensionLimits.MAX_SEQUENCE + 1);
            if (options.size() > ExtensionLimits.MAX_OPTIONS) {
                throw new IllegalArgumentException("options: " + options.size() + " (expected: <= " + ExtensionLimits.MAX_OPTIONS + ")");
            }
            Set<String> keys = new HashSet<>();
            for (FspOptions.Value<?> v : options.values()) {
                String text = v.toString();
                ExtensionCodec.checkOption(v.option().name(), text.substring(v.option().name().length() + 1));
                if (!keys.add(v.option().name())) {
                    throw new IllegalArgumentException("option: " + ExtensionCodec.shorten(v.option().name())
                            + " twice (expected: once)");
                }
            }
        }

        /** The wire checksum of every block ({@code checksum=}, default crc32c). */
        public ChecksumAlgorithm checksum() {
            return options.getOrDefault(FspOption.CHECKSUM);
        }

        /** The algorithm of the announced plaintext digests ({@code digest=}, default sha256). */
        public ChecksumAlgorithm digest() {
            return options.getOrDefault(FspOption.DIGEST);
        }
    }

    /** {@code KEY <base64>} or {@code KEY none}: the transfer's AES key (16 or 32 bytes), or null without a cipher. */
    record Key(byte[] aes) implements Announcement {
        public Key {
            if (aes != null && aes.length != 16 && aes.length != 32) {
                throw new IllegalArgumentException("KEY: " + aes.length + " bytes (expected: 16 or 32)");
            }
            aes = aes == null ? null : aes.clone();
        }

        @Override
        public byte[] aes() {
            return aes == null ? null : aes.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(aes, k.aes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(aes);
        }

        @Override
        public String toString() {
            return aes == null ? "Key[none]" : "Key[" + aes.length * 8 + " bits]";
        }
    }

    /** {@code TOKEN <base64url>}: the capability token the client presents to the relays. */
    record Token(CapabilityToken token) implements Announcement {
        public Token {
            Objects.requireNonNull(token, "token");
        }
    }

    /** {@code RELAY <index> <host:port> <fingerprint>}: a relay that took the transfer, and its pinned certificate. */
    record Relay(int index, String host, int port, Fingerprint fingerprint) implements Announcement {
        public Relay {
            ExtensionCodec.check("relay index", index, 0, ExtensionLimits.MAX_RELAY_INDEX);
            ExtensionCodec.check("relay port", port, 1, 65535);
            ExtensionCodec.checkHost(host);
            Objects.requireNonNull(fingerprint, "fingerprint");
        }
    }

    /**
     * {@code SPACE <index> <reserved> <declared>}: relay {@code index} took the transfer and reserves {@code reserved}
     * of the {@code declared} block bytes the server may push to it (a relay caps what one transfer reserves): the
     * copies it can hold. Follows the RELAY lines.
     */
    record Space(int index, long reserved, long declared) implements Announcement {
        public Space {
            ExtensionCodec.check("relay index", index, 0, ExtensionLimits.MAX_RELAY_INDEX);
            ExtensionCodec.check("reserved", reserved, 0, Long.MAX_VALUE);
            ExtensionCodec.check("declared", declared, 0, Long.MAX_VALUE);
        }
    }

    /**
     * {@code REFUSED <host:port> <reason> <text>}: a relay the server asked to take the transfer that is left out of
     * it, why ({@code reason}: the relay's error code, e.g. {@code RETENTION_TOO_LONG} or {@code NO_SPACE}, or
     * {@code UNREACHABLE}) and what the relay or the connection said.
     */
    record Refused(String host, int port, String reason, String text) implements Announcement {
        public Refused {
            ExtensionCodec.checkHost(host);
            ExtensionCodec.check("relay port", port, 1, 65535);
            ExtensionCodec.checkReason(reason);
            ExtensionCodec.checkText(text);
        }
    }

    /**
     * {@code STOPPED <index> <reason> <text>}: relay {@code index} takes no more of the transfer's blocks ({@code
     * NO_SPACE}: its reservation for the transfer is full; anything else: it failed); its later blocks go elsewhere.
     */
    record Stopped(int index, String reason, String text) implements Announcement {
        public Stopped {
            ExtensionCodec.check("relay index", index, 0, ExtensionLimits.MAX_RELAY_INDEX);
            ExtensionCodec.checkReason(reason);
            ExtensionCodec.checkText(text);
        }
    }

    /** {@code DIR <name>}: a directory of the transfer, relative to the retrieved path ({@link io.fsp.block.RelativePaths}). */
    record Directory(String name) implements Announcement {
        public Directory {
            ExtensionNames.checkRelativeName("DIR ", name);
        }
    }

    /**
     * {@code FILE <index> <size> <mtime-ms> <name>}: a file of the transfer, relative to the retrieved path
     * ({@link io.fsp.block.RelativePaths}); blocks refer to it by index. The FILE lines together are the transfer's
     * {@link Manifest}.
     */
    record File(int index, long size, long modifiedMillis, String name) implements Announcement {
        public File {
            ExtensionCodec.check("file index", index, 0, Integer.MAX_VALUE);
            ExtensionCodec.check("file size", size, 0, Long.MAX_VALUE);
            ExtensionNames.checkRelativeName("FILE ", name);
        }
    }

    /**
     * {@code BLK <seq> <placement> <file-index> <offset> <length> <digest>}: block {@code seq} is
     * {@code length} bytes of file {@code file} at {@code offset}, placed as {@code placement}, and its
     * plaintext has {@code digest}; a {@link Placement.Held} block has no digest ({@code -}: the server did
     * not read it).
     */
    record Block(long seq, Placement placement, int file, long offset, int length, Digest digest) implements Announcement {
        public Block {
            ExtensionCodec.check("seq", seq, 0, ExtensionLimits.MAX_SEQUENCE);
            Objects.requireNonNull(placement, "placement");
            ExtensionCodec.check("file index", file, 0, Integer.MAX_VALUE);
            ExtensionCodec.check("offset", offset, 0, Long.MAX_VALUE - ExtensionLimits.MAX_BLOCK_LENGTH);
            ExtensionCodec.check("length", length, 1, ExtensionLimits.MAX_BLOCK_LENGTH);
            if ((digest == null) != (placement instanceof Placement.Held)) {
                throw new IllegalArgumentException("digest: " + digest + " (expected: '-' exactly for a block held by"
                        + " the client, else <algorithm>:<hex>)");
            }
        }

        /** The bytes of its file the block holds. */
        public ByteRange range() {
            return new ByteRange(offset, offset + length);
        }
    }

    /** Where a block was placed: the client fetches it from there. */
    sealed interface Placement {
        /**
         * {@code relay:I[,I…]}: stored on these relays (distinct, at most {@link ExtensionLimits#MAX_HOLDERS}),
         * the one to ask first first.
         */
        record Relays(List<Integer> holders) implements Placement {
            public Relays {
                holders = List.copyOf(holders);
                if (holders.isEmpty() || holders.size() > ExtensionLimits.MAX_HOLDERS) {
                    throw new IllegalArgumentException("relays: " + holders.size() + " (expected: 1.."
                            + ExtensionLimits.MAX_HOLDERS + ")");
                }
                for (int h : holders) {
                    ExtensionCodec.check("relay index", h, 0, ExtensionLimits.MAX_RELAY_INDEX);
                }
                if (Set.copyOf(holders).size() != holders.size()) {
                    throw new IllegalArgumentException("relays: " + holders + " (expected: distinct relays)");
                }
            }

            /** The relay to ask first. */
            public int first() {
                return holders.get(0);
            }
        }

        /** {@code direct}: sent on the FRET data connection. */
        record Direct() implements Placement {
        }

        /** {@code origin}: no relay took it; the client fetches it from the server with FGET. */
        record Origin() implements Placement {
        }

        /** {@code have}: the client holds it from an earlier run (FHAV); neither read nor sent. */
        record Held() implements Placement {
        }

        Placement DIRECT = new Direct();
        Placement ORIGIN = new Origin();
        Placement HELD = new Held();

        static Placement relays(Integer... holders) {
            return new Relays(List.of(holders));
        }
    }
}
