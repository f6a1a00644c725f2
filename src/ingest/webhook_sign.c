/*
 * Webhook signatures: HMAC-SHA256 over "TIMESTAMP.BODY". The timestamp is
 * signed with the body so that a captured request cannot be replayed once
 * it is WEBHOOK_TOLERANCE_S old (before that, the replay memory refuses
 * it, by the MAC handed back here). The comparison is constant-time;
 * nothing about the expected signature may leak through a message or a
 * timing.
 */
#include "ingest/webhook.h"

#include "core/err.h"
#include "core/hex.h"

#include <inttypes.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAC_LEN WEBHOOK_MAC_LEN
/* more digits than unix seconds will need for millennia; bounds the
 * arithmetic below */
#define TIMESTAMP_DIGITS_MAX 12

/* HMAC-SHA256(secret, ts + "." + body) into mac. */
static int hmac(const char *secret, const char *ts, const char *body, size_t len,
		unsigned char mac[MAC_LEN])
{
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = m ? EVP_MAC_CTX_new(m) : NULL;
	size_t out = 0;
	int ok = ctx && EVP_MAC_init(ctx, (const unsigned char *)secret, strlen(secret), params) &&
		 EVP_MAC_update(ctx, (const unsigned char *)ts, strlen(ts)) &&
		 EVP_MAC_update(ctx, (const unsigned char *)".", 1) &&
		 EVP_MAC_update(ctx, (const unsigned char *)body, len) &&
		 EVP_MAC_final(ctx, mac, &out, MAC_LEN) && out == MAC_LEN;

	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(m);
	return ok ? 0 : SL_E_INTERNAL;
}

int webhook_sign(const char *secret, int64_t ts, const char *body, size_t len, char out_hex[65])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char mac[MAC_LEN];
	char stamp[24];

	out_hex[0] = '\0';
	if (!secret)
		return SL_E_USAGE;
	snprintf(stamp, sizeof(stamp), "%" PRId64, ts);
	if (hmac(secret, stamp, body, len, mac))
		return SL_E_INTERNAL;
	for (int i = 0; i < MAC_LEN; i++) {
		out_hex[2 * i] = hex[mac[i] >> 4];
		out_hex[2 * i + 1] = hex[mac[i] & 15];
	}
	out_hex[2 * MAC_LEN] = '\0';
	return 0;
}

/* "sha256=" and 64 hex digits of either case into mac. */
static bool read_signature(const char *s, unsigned char mac[MAC_LEN])
{
	static const char scheme[] = "sha256=";
	size_t n = sizeof(scheme) - 1;

	if (strncasecmp(s, scheme, n) != 0 || strlen(s + n) != 2 * MAC_LEN)
		return false;
	for (int i = 0; i < MAC_LEN; i++) {
		int hi = hex_value(s[n + 2 * i]), lo = hex_value(s[n + 2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		mac[i] = (unsigned char)(hi << 4 | lo);
	}
	return true;
}

/* Unix seconds: digits only, as many as TIMESTAMP_DIGITS_MAX. */
static bool read_timestamp(const char *s, int64_t *ts)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n > TIMESTAMP_DIGITS_MAX || s[n])
		return false;
	*ts = 0;
	for (size_t i = 0; i < n; i++)
		*ts = *ts * 10 + (s[i] - '0');
	return true;
}

int webhook_verify_signature(const char *secret, const char *timestamp_header,
			     const char *signature_header, const char *body, size_t len,
			     int64_t now_s, struct webhook_signature *out, struct sl_err *err)
{
	unsigned char sent[MAC_LEN], expected[MAC_LEN];
	int64_t ts, age;

	if (!secret || !*secret)
		return sl_err_set(err, SL_E_USAGE, "empty webhook secret");
	if (!signature_header || !*signature_header)
		return sl_err_set(err, SL_E_AUTH_MISSING, "missing %s header",
				  WEBHOOK_SIGNATURE_HEADER);
	if (!timestamp_header || !*timestamp_header)
		return sl_err_set(err, SL_E_AUTH_MISSING, "missing %s header",
				  WEBHOOK_TIMESTAMP_HEADER);
	if (!read_signature(signature_header, sent))
		return sl_err_set(err, SL_E_AUTH_MALFORMED,
				  "malformed %s header (expected sha256= and 64 hex digits)",
				  WEBHOOK_SIGNATURE_HEADER);
	if (!read_timestamp(timestamp_header, &ts))
		return sl_err_set(err, SL_E_AUTH_MALFORMED,
				  "malformed %s header (expected unix seconds)",
				  WEBHOOK_TIMESTAMP_HEADER);
	age = now_s - ts;
	if (age > WEBHOOK_TOLERANCE_S)
		return sl_err_set(err, SL_E_AUTH_EXPIRED,
				  "%s is %" PRId64 " s old (at most %d s; check the sender's clock)",
				  WEBHOOK_TIMESTAMP_HEADER, age, WEBHOOK_TOLERANCE_S);
	if (age < -WEBHOOK_TOLERANCE_S)
		return sl_err_set(err, SL_E_AUTH_EXPIRED,
				  "%s is %" PRId64 " s in the future (at most %d s; check the "
				  "sender's clock)",
				  WEBHOOK_TIMESTAMP_HEADER, -age, WEBHOOK_TOLERANCE_S);
	/* the header's own digits are what the sender signed */
	if (hmac(secret, timestamp_header, body, len, expected))
		return sl_err_set(err, SL_E_INTERNAL, "cannot compute HMAC-SHA256");
	if (CRYPTO_memcmp(sent, expected, MAC_LEN) != 0)
		return sl_err_set(err, SL_E_AUTH_DENIED,
				  "signature does not match (sign \"TIMESTAMP.BODY\" with the "
				  "source's secret)");
	out->ts = ts;
	memcpy(out->mac, expected, MAC_LEN);
	return 0;
}

int webhook_verify(const char *secret, const char *timestamp_header, const char *signature_header,
		   const char *body, size_t len, int64_t now_s, struct sl_err *err)
{
	struct webhook_signature sig;

	return webhook_verify_signature(secret, timestamp_header, signature_header, body, len,
					now_s, &sig, err);
}
