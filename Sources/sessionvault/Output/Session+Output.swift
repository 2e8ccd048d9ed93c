import Foundation
import SessionVault

extension Session {
    /// The session for `--json`: ids, subject, tenant, fingerprints and times; never a token,
    /// and no e-mail or display name (support needs neither to tell what happened).
    var json: JSONValue {
        .object([
            "id": .string(id),
            "subject": .string(identity.subject),
            "issuer": .string(identity.issuer),
            "tenant": .string(identity.tenant),
            "roles": .array(identity.roles.map(JSONValue.string)),
            "activeSubject": .string(activeSubject),
            "tokenType": .string(tokenType),
            "scope": .string(scope),
            "refreshTokenFingerprint": .string(refreshTokenFingerprint?.hex),
            "accessTokenFingerprint": .string(accessTokenFingerprint?.hex),
            "accessExpiresAt": .time(accessExpiresAt),
            "serverExpiresAt": .time(serverExpiresAt),
            "refreshExpiresAt": .time(refreshExpiresAt),
            "issuedAt": .time(issuedAt),
            "lastActiveAt": .time(lastActiveAt),
            "absoluteDeadline": .time(absoluteDeadline),
            "refreshPendingSince": .time(refreshPendingSince),
            // The server refused the refresh without a verdict on the grant since then.
            "refreshRefusedSince": .time(refreshRefusedSince),
            "biometricEnabled": .bool(biometricEnabled),
            "tokenVersion": .int(tokenVersion),
            // The DPoP key's RFC 7638 thumbprint (the server's cnf.jkt); never the key.
            "proofKeyThumbprint": .string(proofKeyThumbprint)
        ])
    }

    /// Label/value rows for people.
    func rows(now: Date) -> [[TextTable.Cell]] {
        var tenant = identity.subject
        if let value = identity.tenant { tenant += ", tenant \(value)" }
        if !identity.roles.isEmpty { tenant += ", roles \(identity.roles.joined(separator: " "))" }
        var rows: [[TextTable.Cell]] = [
            ["session", TextTable.Cell(id)],
            ["subject", TextTable.Cell(tenant)]
        ]
        if let issuer = identity.issuer { rows.append(["issuer", TextTable.Cell(issuer)]) }
        if let activeSubject { rows.append(["acting for", TextTable.Cell(activeSubject, .cyan)]) }
        rows.append(["refresh token", TextTable.Cell(Self.token(refreshTokenFingerprint, refreshExpiresAt, now: now))])
        rows.append(["access token", TextTable.Cell(Self.token(accessTokenFingerprint, accessExpiresAt, now: now))])
        if let proofKeyThumbprint { rows.append(["bound to key", TextTable.Cell("DPoP jkt \(proofKeyThumbprint)")]) }
        rows.append(["signed in", TextTable.Cell(TimeFormat.describe(issuedAt, now: now))])
        rows.append(["last active", TextTable.Cell(TimeFormat.describe(lastActiveAt, now: now))])
        if let absoluteDeadline { rows.append(["deadline", TextTable.Cell(TimeFormat.describe(absoluteDeadline, now: now))]) }
        if let refreshPendingSince {
            rows.append(["refreshing", TextTable.Cell("since \(TimeFormat.describe(refreshPendingSince, now: now))", .yellow)])
        }
        if let refreshRefusedSince {
            rows.append(["renewal refused", TextTable.Cell("since \(TimeFormat.describe(refreshRefusedSince, now: now)), no verdict on the grant", .yellow)])
        }
        rows.append(["biometric", TextTable.Cell(biometricEnabled ? "enabled" : "disabled")])
        return rows
    }

    private static func token(_ fingerprint: Fingerprint?, _ expiry: Date?, now: Date) -> String {
        guard let fingerprint else { return "none" }
        return "fp \(fingerprint.hex), expires \(TimeFormat.describe(expiry, now: now))"
    }
}
