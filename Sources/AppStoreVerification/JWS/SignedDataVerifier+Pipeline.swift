import AppStoreJOSE
import Crypto
import Foundation

extension SignedDataVerifier {
    /// Verifies the signature and certificate chain of `jws` and decodes its payload as `Model`,
    /// without the per-type bundle id and environment checks.
    ///
    /// Use it for payload types this library has no dedicated method for. In the `Xcode` and
    /// `LocalTesting` environments the payload is decoded without any signature check.
    public func verifyAndDecodeSignedData<Model: Decodable & Sendable>(
        _ jws: String, as type: Model.Type = Model.self, now: Date
    ) async -> VerificationResult<Model> {
        var text = jws
        let parsed: ParsedJWS<Model>
        switch text.withUTF8({ parse($0, as: Model.self, now: now) }) {
        case .failure(let failure): return .invalid(failure)
        case .success(let value): parsed = value
        }

        if skipsSignatureVerification {
            return decodedModel(parsed.payload)
        }

        let chain: VerifiedChain
        switch await resolveChain(parsed, now: now) {
        case .failure(let failure): return .invalid(failure)
        case .success(let value): chain = value
        }

        let validationDate = onlineChecks == nil ? (parsed.payload.validationDateClaim?.date ?? now) : now
        guard chain.isValid(at: validationDate) else {
            return .invalid(
                .verificationFailure(
                    "certificate chain is not valid at \(validationDate) (valid from \(chain.validFrom) to \(chain.validUntil))"
                ))
        }

        guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature) else {
            return .invalid(.verificationFailure("signature is not a 64-byte ES256 signature"))
        }
        let signatureIsValid = text.withUTF8 { bytes in
            chain.signingKey.isValidSignature(
                signature, for: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[parsed.segments.signingInput])))
        }
        guard signatureIsValid else {
            return .invalid(.verificationFailure("signature does not verify with the leaf certificate's key"))
        }
        return decodedModel(parsed.payload)
    }

    private func decodedModel<Model>(_ payload: SignedPayload<Model>) -> VerificationResult<Model> {
        switch payload.model {
        case .success(let model): .valid(model)
        case .failure(let error): .invalid(.verificationFailure("payload does not match \(Model.self): \(error)"))
        }
    }

    /// The chain that signed `parsed`, from the caches or verified now.
    private func resolveChain<Model>(_ parsed: ParsedJWS<Model>, now: Date) async -> Result<VerifiedChain, VerificationFailure> {
        if let cached = parsed.cachedChain {
            if case .unusable = parsed.payload.validationDateClaim {
                return .failure(.verificationFailure("signedDate is not an integer"))
            }
            return .success(cached)
        }
        guard let header = parsed.header else {
            return .failure(.verificationFailure("JWS header was not decoded"))
        }

        // The checks below run in the order of Apple's Python verifier, so the first failure
        // gives the same status.
        guard let shape = header.certificateChain, let length = shape.pythonLength, length > 0 else {
            return .failure(.verificationFailure("x5c header is missing or empty"))
        }
        guard header.algorithm == "ES256" else {
            return .failure(
                .verificationFailure("alg is \(header.algorithm.map { "\"\($0)\"" } ?? "missing or not a string"), only ES256 is accepted"))
        }
        if case .unusable = parsed.payload.validationDateClaim {
            return .failure(.verificationFailure("signedDate is not an integer"))
        }
        guard !chainValidator.roots.isEmpty else {
            return .failure(.invalidCertificate("no root certificate is configured"))
        }
        guard length == 3 else {
            return .failure(VerificationFailure(reason: .invalidChainLength, message: "x5c holds \(length) certificates, expected 3"))
        }
        guard case .array(let elements) = shape else {
            return .failure(.invalidCertificate("x5c is not a list of certificates"))
        }
        guard case .string(let leafText) = elements[0], let leafDER = Base64URL.decodeStandard(leafText) else {
            return .failure(.invalidCertificate("x5c[0] is not base64"))
        }
        guard case .string(let intermediateText) = elements[1], let intermediateDER = Base64URL.decodeStandard(intermediateText) else {
            return .failure(.invalidCertificate("x5c[1] is not base64"))
        }

        let chainKey = ChainCacheKey(leaf: leafDER, intermediate: intermediateDER)
        if let cached = chainCache.value(for: chainKey), cached.isUsable(at: now) {
            headerCache.insert(cached, for: parsed.headerKey)
            return .success(cached)
        }
        let result = await chainValidator.validate(
            leafDER: leafDER, intermediateDER: intermediateDER, online: onlineChecks, now: now
        )
        if case .success(let chain) = result {
            chainCache.insert(chain, for: chainKey)
            headerCache.insert(chain, for: parsed.headerKey)
        }
        return result
    }

    /// Splits and decodes the parts of `bytes` every verification needs, looking the header up
    /// in the cache first.
    private func parse<Model: Decodable>(
        _ bytes: UnsafeBufferPointer<UInt8>, as type: Model.Type, now: Date
    ) -> Result<ParsedJWS<Model>, VerificationFailure> {
        guard let segments = JWSSegments(bytes) else {
            return .failure(.verificationFailure("not a compact JWS: expected three dot-separated segments"))
        }
        let headerBytes = UnsafeBufferPointer(rebasing: bytes[segments.header])
        let headerKey = HeaderCacheKey(bytes: Array(headerBytes))
        var header: ReceivedJWSHeader?
        var cachedChain: VerifiedChain?
        if !skipsSignatureVerification, let cached = headerCache.value(for: headerKey), cached.isUsable(at: now) {
            cachedChain = cached
        }
        if cachedChain == nil {
            guard let headerJSON = Base64URL.decode(segment: headerBytes) else {
                return .failure(.verificationFailure("JWS header is not base64url"))
            }
            do {
                header = try JSONDecoder().decode(ReceivedJWSHeader.self, from: Data(headerJSON))
            } catch {
                return .failure(.verificationFailure("JWS header is not a valid JSON object: \(error)"))
            }
        }
        guard let payloadJSON = Base64URL.decode(segment: UnsafeBufferPointer(rebasing: bytes[segments.payload])) else {
            return .failure(.verificationFailure("JWS payload is not base64url"))
        }
        guard let signature = Base64URL.decode(segment: UnsafeBufferPointer(rebasing: bytes[segments.signature])) else {
            return .failure(.verificationFailure("JWS signature is not base64url"))
        }
        let payload: SignedPayload<Model>
        do {
            payload = try JSONDecoder().decode(SignedPayload<Model>.self, from: Data(payloadJSON))
        } catch {
            return .failure(.verificationFailure("JWS payload is not a JSON object: \(error)"))
        }
        return .success(
            ParsedJWS(
                segments: segments, headerKey: headerKey, header: header, cachedChain: cachedChain,
                payload: payload, signature: signature
            ))
    }
}

/// A JWS split and decoded, before its chain and signature are judged.
struct ParsedJWS<Model: Decodable> {
    let segments: JWSSegments
    let headerKey: HeaderCacheKey
    /// The decoded header; `nil` when the header was found in the cache.
    let header: ReceivedJWSHeader?
    /// The chain of an identical header verified earlier.
    let cachedChain: VerifiedChain?
    let payload: SignedPayload<Model>
    let signature: [UInt8]
}
