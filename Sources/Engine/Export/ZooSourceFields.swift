import Events

/// The Taipei Zoo open data's field keys and the `AnimalRecord` field each fills: one table for
/// the importer (`replay import zoo`), which reads them, and the exporter, which writes them back.
package enum ZooSourceFields {
  /// Each text field's key, lowercased, without the byte-order mark.
  package static let text: [String: any WritableKeyPath<AnimalRecord, String> & Sendable] = [
    "a_name_ch": \.nameChinese, "a_name_en": \.nameEnglish, "a_name_latin": \.nameLatin,
    "a_alsoknown": \.alsoKnownAs, "a_location": \.location, "a_geo": \.geo,
    "a_phylum": \.phylum, "a_class": \.taxonomicClass, "a_order": \.order, "a_family": \.family,
    "a_conservation": \.conservation, "a_distribution": \.distribution, "a_habitat": \.habitat,
    "a_feature": \.feature, "a_behavior": \.behavior, "a_diet": \.diet, "a_crisis": \.crisis,
    "a_interpretation": \.interpretation, "a_theme_name": \.themeName,
    "a_theme_url": \.themeURL, "a_adopt": \.adopt, "a_code": \.code, "a_vedio_url": \.videoURL,
    "a_video_url": \.videoURL, "a_update": \.update, "a_cid": \.cid, "a_summary": \.summary,
    "a_keywords": \.keywords, "a_poigroup": \.poiGroup,
  ]

  /// The slotted link lists: key prefix → the record's list.
  package static let links:
    [(prefix: String, list: any WritableKeyPath<AnimalRecord, [MediaLink]> & Sendable)] = [
      ("a_pic", \.pictures), ("a_pdf", \.pdfs), ("a_voice", \.voices),
    ]
}
