// libFuzzer target for the legacy receipt path: PKCS#7 / CMS (DER and BER), the embedded
// certificates, the ASN.1 receipt payload and the verifyReceipt rendering of what decodes.
// Every input is tried as binary and as base64 text. A crash or a hang is a finding; so is an
// input accepted as valid, since no fuzzer-made receipt can carry Apple's signature.
import AppStoreModels
import AppStoreVerification
import Foundation
import FuzzerSupport

let fixedNow = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
let verifier = try! ReceiptVerifier()

let callback: FuzzCallback = { bytes, count in
    guard let bytes, count > 0 else { return 0 }
    let data = Data(UnsafeBufferPointer(start: bytes, count: count))
    let result = verifier.verify(data, deviceIdentifier: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), now: fixedNow)
    if result.receipt != nil { fatalError("a fuzzer-made receipt verified against Apple's root") }
    _ = result.verifyReceiptResponse(now: fixedNow)
    // The unverified decoder reads payloads without any signature; it must survive anything.
    if let receipt = AppReceipt.decodeUnverified(data) {
        _ = receipt.verifyReceiptResponse(now: fixedNow)
    }
    return 0
}

runFuzzer(callback)
