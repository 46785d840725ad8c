package io.fsp.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NativeCryptoTest {

    /** The platform CI runs on has both native libraries: a silent fall-back to the JDK's would go unnoticed. */
    @Test
    void loadsOnLinuxX86() {
        if (System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64")) {
            assertTrue(NativeCrypto.aesGcm().isPresent(), NativeCrypto.description());
            assertTrue(NativeCrypto.description().contains("BoringSSL") && NativeCrypto.description().contains("AWS-LC"),
                    NativeCrypto.description());
        }
    }

    @Test
    void nativeDigestsEqualTheJdksOnHeapAndDirectBuffers() throws Exception {
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(5).nextBytes(data);
        for (String alg : new String[] {"SHA-256", "SHA-1", "MD5"}) {
            byte[] jdk = MessageDigest.getInstance(alg).digest(data);
            MessageDigest heap = NativeCrypto.messageDigest(alg);
            assertArrayEquals(jdk, heap.digest(data), alg + " on an array");
            MessageDigest direct = NativeCrypto.messageDigest(alg);
            ByteBuffer buf = ByteBuffer.allocateDirect(data.length).put(data).flip();
            direct.update(buf);
            assertArrayEquals(jdk, direct.digest(), alg + " on a direct buffer");
            assertEquals(0, buf.remaining());
        }
    }
}
