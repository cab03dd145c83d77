import AppStoreModels
import Foundation
import SubscriptionEngine

/// The input of `storekeeper status`: either a `verifyReceipt` response or decoded StoreKit 2
/// payloads, recognized by shape.
///
/// The StoreKit 2 form is `{"transactions": [JWSTransactionDecodedPayload…],
/// "renewalInfo": [JWSRenewalInfoDecodedPayload…]}` (`renewalInfos` is accepted too; either
/// key may be absent). Anything else with a `status`, `receipt` or `latest_receipt_info` key is
/// read as a `verifyReceipt` response.
public enum StatusInput: Sendable, Hashable {
    case verifyReceipt(VerifyReceiptResponse)
    case storeKit2(transactions: [JWSTransactionDecodedPayload], renewalInfos: [JWSRenewalInfoDecodedPayload])

    /// Recognizes and decodes `json`.
    public init(json: Data) throws(StatusReportError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json)
        } catch {
            throw StatusReportError(code: .unreadableInput, message: "The input is not JSON: \(error)")
        }
        guard let dictionary = object as? [String: Any] else {
            throw StatusReportError(code: .unreadableInput, message: "The input must be a JSON object.")
        }
        do {
            if dictionary["transactions"] != nil || dictionary["renewalInfo"] != nil || dictionary["renewalInfos"] != nil {
                let decoded = try JSONDecoder().decode(StoreKit2Envelope.self, from: json)
                self = .storeKit2(transactions: decoded.transactions ?? [], renewalInfos: decoded.renewalInfo ?? decoded.renewalInfos ?? [])
            } else if dictionary["status"] != nil || dictionary["receipt"] != nil || dictionary["latest_receipt_info"] != nil {
                let response = try JSONDecoder().decode(VerifyReceiptResponse.self, from: json)
                guard response.status == .valid else {
                    throw StatusReportError(
                        code: .receiptNotValid,
                        message: "verifyReceipt status \(response.status.rawValue): the response carries no purchases to trust.")
                }
                self = .verifyReceipt(response)
            } else {
                throw StatusReportError(
                    code: .unreadableInput,
                    message: "Expected a verifyReceipt response or {\"transactions\": [...], \"renewalInfo\": [...]}."
                )
            }
        } catch let error as StatusReportError {
            throw error
        } catch {
            throw StatusReportError(code: .unreadableInput, message: "The input does not decode: \(error)")
        }
    }

    /// The normalized history.
    public var history: PurchaseHistory {
        switch self {
        case .verifyReceipt(let response): PurchaseHistory(verifyReceipt: response)
        case .storeKit2(let transactions, let renewalInfos): PurchaseHistory(transactions: transactions, renewalInfos: renewalInfos)
        }
    }

    private struct StoreKit2Envelope: Decodable {
        var transactions: [JWSTransactionDecodedPayload]?
        var renewalInfo: [JWSRenewalInfoDecodedPayload]?
        var renewalInfos: [JWSRenewalInfoDecodedPayload]?
    }
}
