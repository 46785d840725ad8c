/** What FSP's programs share: their exit codes and the runner of their start-up warm-ups. */
package io.fsp.program;
