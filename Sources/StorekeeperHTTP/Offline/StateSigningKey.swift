import AppStoreJOSE
import Crypto
import Foundation
import StorekeeperApps
import StorekeeperStore
import Synchronization

/// The key the server signs customer-state answers with, so the SDK can keep serving a
/// customer's entitlements from its cache while the device is offline and know the cache was
/// neither forged nor edited.
///
/// One ES256 (P-256) key for the whole server: the configuration's `stateSigningKey` file when
/// given, otherwise one made at the first start and kept in the database, so that every replica
/// signs with the same key and an app may pin its public key.
package struct StateSigningKey: Sendable {
    package let privateKey: P256.Signing.PrivateKey

    /// The key's id: the first 16 hex digits of the SHA-256 of its public key (SPKI DER).
    package var keyId: String {
        SHA256.hash(data: privateKey.publicKey.derRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The public key as PEM (`-----BEGIN PUBLIC KEY-----`), what an app is configured with.
    package var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    /// The name the made key is stored under.
    package static let storedName = "customer-state-signing-key"

    /// Reads the configured key file, or the database's key (making it when there is none).
    package static func resolve(file: String?, store: any StorekeeperStorage, now: Date) async throws -> StateSigningKey {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError("cannot read stateSigningKey \(file)")
            }
            do {
                return StateSigningKey(privateKey: try P256.Signing.PrivateKey(pemRepresentation: String(decoding: data, as: UTF8.self)))
            } catch {
                throw ConfigurationError("stateSigningKey \(file) is not a PEM P-256 private key")
            }
        }
        let stored = try await store.serverKey(name: storedName, proposed: P256.Signing.PrivateKey().pemRepresentation, now: now)
        do {
            return StateSigningKey(privateKey: try P256.Signing.PrivateKey(pemRepresentation: stored))
        } catch {
            throw ConfigurationError("the database's \(storedName) is not a PEM P-256 private key")
        }
    }

    /// Signs `claims` as a compact JWS (`alg` ES256, `typ` JWT-less `storekeeper-state+jws`, `kid`).
    package func sign(_ claims: some Encodable) throws -> String {
        try ES256Signer(privateKey: privateKey).sign(claims, header: JWSHeader(type: "storekeeper-state+jws", keyId: keyId))
    }
}

/// The signing key once startup has read it.
package final class StateSigningKeyBox: Sendable {
    private let key = Mutex<StateSigningKey?>(nil)

    package func set(_ value: StateSigningKey) { key.withLock { $0 = value } }
    package var value: StateSigningKey? { key.withLock { $0 } }
}
