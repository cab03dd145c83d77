import Crypto
import Foundation

/// A short, non-reversible name for a secret, for audit entries and logs: the first 8 hex
/// digits of its SHA-256.
enum KeyFingerprint {
    static func of(_ secret: String) -> String {
        "key:" + SHA256.hash(data: Data(secret.utf8)).prefix(4).map { String(format: "%02x", $0) }.joined()
    }
}
