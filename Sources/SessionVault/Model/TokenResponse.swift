import Foundation

/// A successful token endpoint response: Supabase GoTrue's (`access_token`, `token_type`,
/// `expires_in`, `expires_at`, `refresh_token`, `user{…}`) or a plain RFC 6749 §5.1 one.
///
/// It holds the tokens themselves (in locked memory, see `Token`) but prints only their
/// fingerprints, when known, and their lifetimes.
public struct TokenResponse: Sendable, CustomStringConvertible {
    /// The access token (`access_token`).
    public var accessToken: Token
    /// The token type (`token_type`), normally `bearer`.
    public var tokenType: String
    /// Lifetime of the access token in seconds, from the server. Expiry is computed from this
    /// against the local time of receipt, so a wrong device clock does not shorten or extend it.
    public var expiresIn: Int64?
    /// The server's own expiry time (Unix seconds), kept for reference.
    public var expiresAt: Int64?
    /// The refresh token (`refresh_token`); a refresh response without one keeps the stored one.
    public var refreshToken: Token?
    /// Lifetime of the refresh token in seconds, when the server states one.
    public var refreshExpiresIn: Int64?
    /// The granted scope (`scope`), when stated.
    public var scope: String?
    /// Who the tokens belong to; refresh responses often carry none (the stored identity stays).
    public var identity: SessionIdentity?
    /// Whether `identity` was read from the access token's claims alone (no ID token, no user
    /// object named anyone). Access tokens are opaque to clients (RFC 6749 §1.4): their `sub`
    /// may be a server's internal id, so a refresh whose only identity is this one is never, by
    /// itself, an answer for another subject.
    var identityFromAccessTokenOnly = false
    /// The response's `id_token`, kept (sealed) for the end-session URL's `id_token_hint`.
    var idToken: Token?
    /// The access token's own `sub`, when it is a JWT that names one: a session stored before
    /// the ID token's subject was preferred may be known by it.
    var accessTokenSubject: String?

    /// A response a custom `SessionRefresher` built from its server's answer. `Vault.store` and
    /// `Vault.rotate` check its numbers against `lifetimeRange` and `unixTimeRange`.
    public init(
        accessToken: Token, tokenType: String = "bearer", expiresIn: Int64?, expiresAt: Int64? = nil,
        refreshToken: Token?, refreshExpiresIn: Int64? = nil, scope: String? = nil, identity: SessionIdentity?
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.refreshExpiresIn = refreshExpiresIn
        self.scope = scope
        self.identity = identity
    }

    /// Parses a token response body.
    ///
    /// The subject comes from the ID token's `sub` (with its `iss`: OIDC Core's identifier of the
    /// user), else the provider's own user object (GoTrue's `user.id`), and from the access
    /// token's claims only when nothing else names the user; without one `identity` is nil (fine
    /// for a refresh, refused by `store`).
    public init(json: Data) throws(TokenResponseError) {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { throw .notJSON }
        guard let access = object["access_token"] as? String, !access.isEmpty else { throw .missingField("access_token") }
        let accessClaims = JWTClaims.decode(access)
        let idClaims = (object["id_token"] as? String).flatMap(JWTClaims.decode) ?? [:]
        let user = object["user"] as? [String: Any] ?? [:]
        let appMetadata = user["app_metadata"] as? [String: Any] ?? [:]
        let userMetadata = user["user_metadata"] as? [String: Any] ?? [:]

        func claim(_ name: String) -> Any? { user[name] ?? idClaims[name] ?? accessClaims[name] }

        let named = [idClaims["sub"] as? String, user["id"] as? String].compactMap { $0 }.first { !$0.isEmpty }
        let subject = named ?? (accessClaims["sub"] as? String)

        var roles: [String] = []
        if let list = appMetadata["roles"] as? [String] { roles = list } else if let role = (appMetadata["role"] ?? claim("role")) as? String { roles = [role] }

        let metadataJSON: String
        if userMetadata.isEmpty {
            metadataJSON = "{}"
        } else if let data = try? JSONSerialization.data(withJSONObject: userMetadata, options: [.sortedKeys]) {
            metadataJSON = String(decoding: data, as: UTF8.self)
        } else {
            throw .invalidField("user.user_metadata")
        }

        let identity = subject.flatMap { $0.isEmpty ? nil : $0 }.map { subject in
            SessionIdentity(
                subject: subject,
                issuer: (idClaims["iss"] ?? accessClaims["iss"]) as? String,
                tenant: (appMetadata["tenant_id"] ?? appMetadata["tenant"] ?? claim("tenant_id") ?? claim("tid")) as? String,
                email: claim("email") as? String,
                displayName: (userMetadata["full_name"] ?? userMetadata["name"] ?? userMetadata["display_name"] ?? idClaims["name"]) as? String,
                roles: roles,
                metadataJSON: metadataJSON)
        }

        let expiresIn = try Self.integer(object["expires_in"], "expires_in", in: Self.lifetimeRange)
        var expiresAt = try Self.integer(object["expires_at"], "expires_at", in: Self.unixTimeRange)
        if expiresIn == nil && expiresAt == nil, let exp = try? Self.integer(accessClaims["exp"], "exp", in: Self.unixTimeRange) { expiresAt = exp }

        let refresh: Token?
        if let value = object["refresh_token"] {
            guard let text = value as? String, !text.isEmpty else { throw .invalidField("refresh_token") }
            refresh = try? Token(text)
        } else {
            refresh = nil
        }
        guard let accessToken = try? Token(access) else { throw .invalidField("access_token") }
        self.init(
            accessToken: accessToken,
            tokenType: (object["token_type"] as? String) ?? "bearer",
            expiresIn: expiresIn,
            expiresAt: expiresAt,
            refreshToken: refresh,
            refreshExpiresIn: try Self.integer(object["refresh_expires_in"], "refresh_expires_in", in: Self.lifetimeRange),
            scope: object["scope"] as? String,
            identity: identity)
        identityFromAccessTokenOnly = identity != nil && named == nil
        accessTokenSubject = accessClaims["sub"] as? String
        idToken = (object["id_token"] as? String).flatMap { $0.isEmpty ? nil : try? Token($0) }
    }

    /// The lifetimes (`expires_in`, `refresh_expires_in`, in seconds) accepted: zero (already
    /// expired) up to 100 years. A negative lifetime would store a refresh expiry before the
    /// sign-in, which the next open must read as damage; a larger one is no real lifetime.
    public static let lifetimeRange: ClosedRange<Int64> = 0...3_155_760_000

    /// The Unix times (`expires_at`, a JWT `exp`, in seconds) accepted: 1970 up to the end of
    /// the year 9999.
    public static let unixTimeRange: ClosedRange<Int64> = 0...253_402_300_799

    /// Refuses numbers outside `lifetimeRange` and `unixTimeRange`. `Vault.store` and
    /// `Vault.rotate` call it, so a response built by hand gets the same answer as a parsed one,
    /// and whatever they accept, the next open accepts.
    package func checkRanges() throws(TokenResponseError) {
        if let expiresIn, !Self.lifetimeRange.contains(expiresIn) { throw .invalidField("expires_in") }
        if let expiresAt, !Self.unixTimeRange.contains(expiresAt) { throw .invalidField("expires_at") }
        if let refreshExpiresIn, !Self.lifetimeRange.contains(refreshExpiresIn) { throw .invalidField("refresh_expires_in") }
    }

    /// Token type, lifetimes, whether a refresh token came, and the subject; never a token.
    public var description: String {
        "TokenResponse(\(tokenType), access expires in \(expiresIn.map { "\($0) s" } ?? "-"), "
            + "refresh token \(refreshToken == nil ? "none" : "present")\(identity.map { ", subject \($0.subject)" } ?? ""))"
    }

    /// A whole number within `range`, given as a JSON number or a decimal string; anything else
    /// (fractions, exponents beyond the range, NaN, text) is `.invalidField(name)`, never a trap.
    private static func integer(_ value: Any?, _ name: String, in range: ClosedRange<Int64>) throws(TokenResponseError) -> Int64? {
        guard let value, !(value is NSNull) else { return nil }
        let number: Int64?
        if let text = value as? String {
            number = Int64(text)
        } else if let numeric = value as? NSNumber, String(cString: numeric.objCType) != "c" {
            // ("c" is how JSON's true and false arrive: a flag is not a number of seconds.)
            // Through Double: JSONSerialization hands big or exponent forms over as doubles.
            // The range bounds are far inside Double's exact integers, so no rounding is lost.
            let double = numeric.doubleValue
            number =
                double.isFinite && double == double.rounded() && double >= Double(range.lowerBound) && double <= Double(range.upperBound)
                ? Int64(exactly: double) : nil
        } else {
            number = nil
        }
        guard let number, range.contains(number) else { throw .invalidField(name) }
        return number
    }
}

/// Reads the claims of a JWT without verifying it: for display metadata (subject, issuer,
/// email) only. Anything that is not a three-part base64url JWT gives no claims.
package enum JWTClaims {
    package static func decode(_ token: String) -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return [:] }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return [:] }
        return object
    }
}

/// Why a token response was refused. Names fields, never their values.
public enum TokenResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body is not a JSON object.
    case notJSON
    /// A required field is absent (e.g. `access_token`, or no subject anywhere for a sign-in).
    case missingField(String)
    /// A field has the wrong type or an out-of-range value (see `TokenResponse.lifetimeRange`).
    case invalidField(String)

    public var description: String {
        switch self {
        case .notJSON: return "token response is not a JSON object"
        case .missingField(let name): return "token response has no \(name)"
        case .invalidField(let name): return "token response field \(name) has the wrong type or value"
        }
    }
}

extension TokenResponse {
    /// This response with the identity the app supplies: for a plain RFC 6749 response (opaque
    /// tokens, no `user`, no `sub`), where the app knows who just signed in and the server does
    /// not say.
    ///
    /// Fields the app leaves nil are filled from what the response carries (claims of a JWT
    /// access or ID token), if anything. A response that names a different subject is refused
    /// with `.invalidField("sub")`: the tokens would belong to someone else than the app thinks.
    /// An access token's own `sub` alone is not such a statement (a server's internal id): it is
    /// set aside for the app's.
    public func identified(as identity: SessionIdentity) throws(TokenResponseError) -> TokenResponse {
        var merged = identity
        if let stated = self.identity, !(identityFromAccessTokenOnly && stated.subject != identity.subject) {
            guard stated.subject == identity.subject else { throw .invalidField("sub") }
            merged.issuer = identity.issuer ?? stated.issuer
            merged.tenant = identity.tenant ?? stated.tenant
            merged.email = identity.email ?? stated.email
            merged.displayName = identity.displayName ?? stated.displayName
            if identity.roles.isEmpty { merged.roles = stated.roles }
            if identity.metadataJSON == "{}" { merged.metadataJSON = stated.metadataJSON }
        }
        var copy = self
        copy.identity = merged
        copy.identityFromAccessTokenOnly = false
        return copy
    }
}

/// Expiry times of a token response, computed against the local time of receipt.
struct TokenTimes {
    /// The receipt time: what the access token's lifetime is measured from.
    let accessIssuedAt: Int64
    let accessExpiresAt: Int64?
    let serverExpiresAt: Int64?
    let refreshExpiresAt: Int64
    let absoluteDeadline: Int64?

    // Saturating arithmetic throughout: the inputs are a server's numbers (range-checked by
    // `TokenResponse.checkRanges`, but a caller may build a response by hand), the app's clock
    // and its policy; none of them may trap the process after a refresh token was spent.
    init(_ response: TokenResponse, receivedAt now: Date, policy: ResumePolicy, serverClockOffset: TimeInterval) {
        let receipt = now.unixMilliseconds
        if let expiresIn = response.expiresIn {
            accessExpiresAt = UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: expiresIn))
        } else if let expiresAt = response.expiresAt {
            // Only a server time is known: move it onto the local clock.
            accessExpiresAt = UnixMilliseconds.sum(UnixMilliseconds.from(seconds: expiresAt), -UnixMilliseconds.from(seconds: serverClockOffset))
        } else {
            // No lifetime stated anywhere (no expires_in, expires_at or JWT exp): the policy's
            // stated default, never "no expiry", which read as "no access token" and asked for a
            // refresh on every call.
            accessExpiresAt = UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: policy.assumedAccessTokenLifetime))
        }
        accessIssuedAt = receipt
        serverExpiresAt = response.expiresAt.map { UnixMilliseconds.from(seconds: $0) }
        // Never before the receipt: the next open refuses a refresh expiry before the issue time
        // as damage (`SessionRecord.checkInvariants`), so what is written here must satisfy it.
        let refreshLifetime =
            response.refreshExpiresIn.map { UnixMilliseconds.from(seconds: $0) }
            ?? UnixMilliseconds.from(seconds: policy.refreshTokenLifetime)
        refreshExpiresAt = UnixMilliseconds.sum(receipt, max(refreshLifetime, 0))
        absoluteDeadline = policy.absoluteLifetime.map { UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: $0)) }
    }
}
