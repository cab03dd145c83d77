import Foundation
import X509

extension Doctor {
    /// The TLS files: present, parsed, the key the leaf's, valid now and for 30 more days, the
    /// chain leaf first, not self-signed for production; or plain HTTP where Apple cannot use it.
    func tlsFindings() -> [DoctorFinding] {
        guard let tls = configuration.tls else {
            guard !Self.isLoopback(configuration.host) else { return [] }
            return [
                .warning(
                    .plainHTTP, app: nil, "the server listens on \(configuration.host) with plain HTTP; Apple sends notifications only to https URLs",
                    todo: "Set tls (certificate and key) or put a TLS-terminating proxy in front and keep the server on 127.0.0.1.")
            ]
        }
        var findings: [DoctorFinding] = []
        for path in [tls.certificate, tls.key] where !FileManager.default.fileExists(atPath: path) {
            findings.append(
                .error(
                    .tlsFileMissing, app: nil, "the TLS file \(path) does not exist",
                    todo: "Put the PEM file at \(path), or fix tls in the configuration."))
        }
        guard findings.isEmpty else { return findings }
        let chain: [Certificate]
        do {
            chain = try Self.certificates(pem: String(contentsOfFile: tls.certificate, encoding: .utf8))
            guard !chain.isEmpty else { throw CLIFailure.usage("no certificate") }
        } catch {
            return [
                .error(
                    .tlsCertificateUnreadable, app: nil, "\(tls.certificate) holds no readable PEM certificate",
                    todo: "Put the certificate chain there as PEM (-----BEGIN CERTIFICATE-----), the server's certificate first.")
            ]
        }
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: String(contentsOfFile: tls.key, encoding: .utf8))
        } catch {
            return [
                .error(
                    .tlsKeyUnreadable, app: nil, "\(tls.key) holds no readable PEM private key",
                    todo: "Put the certificate's private key there as PEM (-----BEGIN PRIVATE KEY-----).")
            ]
        }
        let leaf = chain[0]
        if key.publicKey != leaf.publicKey {
            if let index = chain.firstIndex(where: { $0.publicKey == key.publicKey }) {
                findings.append(
                    .error(
                        .tlsChainOrder, app: nil, "\(tls.certificate) lists the key's certificate in position \(index + 1), not first",
                        todo: "Reorder \(tls.certificate): the server's own certificate first, then each issuer in turn."))
            } else {
                findings.append(
                    .error(
                        .tlsKeyMismatch, app: nil, "the key \(tls.key) is not the key of the certificate \(tls.certificate)",
                        todo: "Use the private key the certificate was issued for (compare `openssl x509 -pubkey` and `openssl pkey -pubout`)."))
            }
        } else if let misplaced = zip(chain, chain.dropFirst()).first(where: { $0.0.issuer != $0.1.subject }) {
            findings.append(
                .warning(
                    .tlsChainOrder, app: nil, "in \(tls.certificate), \(misplaced.0.subject) is not issued by the certificate after it",
                    todo: "Order \(tls.certificate) leaf first, then each issuer in turn, leaving out certificates of other chains."))
        }
        findings += validityFindings(leaf, file: tls.certificate)
        if chain.count == 1, leaf.issuer == leaf.subject, configuration.apps.contains(where: { $0.environments.contains(.production) }) {
            findings.append(
                .warning(
                    .tlsSelfSigned, app: nil,
                    "the certificate \(tls.certificate) is self-signed; Apple does not deliver production notifications to it",
                    todo: "Use a certificate from a public certificate authority (e.g. Let's Encrypt) for the notification URL's host."))
        }
        if findings.isEmpty {
            findings.append(.ok(.tlsValid, app: nil, "the TLS certificate and key match, valid until \(leaf.notValidAfter)"))
        }
        return findings
    }

    /// The leaf's validity at the local clock: expired, not yet valid, or ending within 30 days.
    func validityFindings(_ leaf: Certificate, file: String) -> [DoctorFinding] {
        let now = now()
        if leaf.notValidAfter < now {
            return [
                .error(
                    .tlsCertificateExpired, app: nil, "the certificate \(file) expired on \(leaf.notValidAfter)",
                    todo: "Renew the certificate, replace \(file) and restart the server.")
            ]
        }
        if leaf.notValidBefore > now {
            return [
                .error(
                    .tlsCertificateNotYetValid, app: nil, "the certificate \(file) is valid only from \(leaf.notValidBefore)",
                    todo: "Check this machine's clock, or use a certificate valid now.")
            ]
        }
        if leaf.notValidAfter < now.addingTimeInterval(30 * 86_400) {
            return [
                .warning(
                    .tlsCertificateExpiresSoon, app: nil, "the certificate \(file) expires on \(leaf.notValidAfter), within 30 days",
                    todo: "Renew the certificate now and replace \(file) (automate it, e.g. with certbot's deploy hook).")
            ]
        }
        return []
    }

    /// Every `CERTIFICATE` block of a PEM text, in order.
    static func certificates(pem: String) throws -> [Certificate] {
        let end = "-----END CERTIFICATE-----"
        return try pem.components(separatedBy: end).dropLast().compactMap { part in
            guard let start = part.range(of: "-----BEGIN CERTIFICATE-----") else { return nil }
            return try Certificate(pemEncoded: String(part[start.lowerBound...]) + end)
        }
    }

    /// Whether `host` is a loopback address, where plain HTTP never leaves the machine.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
