package io.fsp.server.ftp.data;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of what the server reads from a data connection's ClientHello before any TLS handler
 * has seen it ({@link DataClientHelloHandler#attemptsResumption}, {@link DataClientHelloHandler#offersTls12}): any
 * bytes, from any offset, give an answer and never an exception, and read nothing outside them. {@code mvn verify}
 * fuzzes it for a bounded time (the {@code fuzz-client-hello} execution in this module's pom); plain test runs
 * replay the inputs in {@code DataClientHelloFuzzTestInputs}.
 */
class DataClientHelloFuzzTest {
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void readsAnyHelloWithoutFailing(FuzzedDataProvider data) {
        int skip = data.consumeInt(0, 8);
        byte[] bytes = data.consumeRemainingAsBytes();
        ByteBuf hello = Unpooled.wrappedBuffer(bytes).readerIndex(Math.min(skip, bytes.length));
        ByteBuf bounded = hello.slice(); // reads past the end would throw, not read neighbouring memory
        DataClientHelloHandler.attemptsResumption(bounded, true);
        DataClientHelloHandler.attemptsResumption(bounded, false);
        DataClientHelloHandler.offersTls12(bounded);
    }
}
