/**
 * Who may log in: a users file with Argon2id password hashes (RFC 9106, PHC string form), per-user root
 * and access, optional anonymous read-only access, and a growing delay after failed logins.
 */
package io.fsp.server.auth;
