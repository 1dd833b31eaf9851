// Label phrases of invoice fields in English, German, French, Dutch, Polish, Spanish and Italian.
// Phrases are compared without case, accents or extra spaces, and a currency between words is
// tolerated ("Montant EUR HT" matches "montant ht"). Longer phrases win over shorter ones inside them.

export type LabelsByLanguage = Record<string, string[]>;

export const invoiceNumberLabels: LabelsByLanguage = {
  en: ['invoice ... no', 'invoice ... number', 'invoice number', 'invoice no', 'invoice no.', 'invoice #', 'invoice nr', 'invoice id', 'inv no', 'inv. no.', 'bill no', 'bill number', 'document number', 'document no', 'tax invoice no', 'credit note number', 'credit note no', 'invoice'],
  de: ['rechnung ... nr', 'rechnung ... nr.', 'korrektur nr', 'rechnungskorrektur nr', 'stornorechnung nr', 'rechnungsnummer', 'rechnungsnr', 'rechnungsnr.', 'rechnung nr', 'rechnung nr.', 'rechnungs-nr', 'rechnungs-nr.', 're-nr', 're.-nr.', 'belegnummer', 'beleg-nr', 'belegnr', 'gutschriftsnummer', 'gutschrift nr', 'dokumentnummer', 'rechnung'],
  fr: ['facture ... n°', 'numero de facture', 'n° de facture', 'no de facture', 'facture n°', 'facture no', 'facture numero', 'n° facture', 'avoir n°', "numero d'avoir", 'facture'],
  nl: ['factuurnummer', 'factuurnr', 'factuurnr.', 'factuur nr', 'factuur nummer', 'creditnotanummer', 'notanummer', 'factuur'],
  pl: ['faktura ... nr', 'numer faktury', 'nr faktury', 'faktura nr', 'faktura vat nr', 'faktura numer', 'faktura vat', 'faktura'],
  es: ['numero de factura', 'n° de factura', 'nº factura', 'factura n°', 'factura nº', 'factura no', 'factura'],
  it: ['n. fattura', 'numero fattura', 'numero documento', 'fattura n.', 'fattura n°', 'fattura nr', 'fattura numero', 'fattura'],
};

export const issueDateLabels: LabelsByLanguage = {
  en: ['invoice date', 'date of invoice', 'issue date', 'date of issue', 'date issued', 'issued on', 'issued at', 'billing date', 'document date', 'invoice dated', 'date'],
  de: ['rechnungsdatum', 'rechnungs-datum', 'belegdatum', 'beleg-datum', 'ausstellungsdatum', 'ausgestellt am', 'datum'],
  fr: ['date de facture', 'date de facturation', "date d'emission", 'date de la facture', 'facture du', 'date'],
  nl: ['factuurdatum', 'factuur datum', 'datum factuur', 'datum'],
  pl: ['data wystawienia', 'data faktury', 'data dokumentu', 'data'],
  es: ['fecha de factura', 'fecha de emision', 'fecha factura', 'fecha'],
  it: ['data fattura', 'data di emissione', 'data documento', 'data'],
};

export const dueDateLabels: LabelsByLanguage = {
  en: ['due date', 'payment due', 'date due', 'due on', 'pay by', 'payable by', 'payment due date', 'remit until', 'pay until', 'payable until', 'due'],
  de: ['fälligkeitsdatum', 'fällig am', 'fällig bis', 'fälligkeit', 'zahlungsziel', 'zahlbar bis', 'zahlbar bis zum', 'netto bis', 'bis zum'],
  fr: ["date d'echeance", 'echeance', 'date limite de paiement', 'a payer avant le', 'payable avant le', 'date limite'],
  nl: ['vervaldatum', 'uiterste betaaldatum', 'te betalen voor', 'betalen voor'],
  pl: ['termin platnosci', 'termin zaplaty', 'data platnosci'],
  es: ['fecha de vencimiento', 'vencimiento'],
  it: ['data scadenza', 'scadenza'],
};

export const deliveryDateLabels: LabelsByLanguage = {
  en: ['delivery date', 'date of delivery', 'service date', 'date of supply', 'ship date', 'shipping date', 'date of service'],
  de: ['lieferdatum', 'leistungsdatum', 'liefer- und leistungsdatum', 'liefer-datum', 'leistungs-datum', 'liefer- bzw. leistungsdatum', 'lieferung am', 'leistungszeitraum'],
  fr: ['date de livraison', 'date de prestation', 'livre le'],
  nl: ['leverdatum', 'afleverdatum', 'leveringsdatum'],
  pl: ['data dostawy', 'data sprzedazy', 'data wykonania uslugi', 'data zakonczenia dostawy'],
  es: ['fecha de entrega', 'fecha de servicio'],
  it: ['data di consegna', 'data consegna'],
};

export const currencyLabels: LabelsByLanguage = {
  en: ['currency', 'invoice currency'],
  de: ['währung', 'rechnungswährung', 'beträge in'],
  fr: ['devise', 'monnaie'],
  nl: ['valuta', 'munteenheid'],
  pl: ['waluta'],
  es: ['moneda', 'divisa'],
  it: ['valuta'],
};

export const netAmountLabels: LabelsByLanguage = {
  en: ['subtotal', 'sub-total', 'sub total', 'net amount', 'net total', 'total net', 'total excl. vat', 'total excl vat', 'total excluding vat', 'total excluding tax', 'total before tax', 'amount excl. vat', 'total excl. gst', 'total excl gst', 'total excluding gst', 'amount excl. gst', 'taxable amount', 'taxable value', 'net'],
  de: ['nettobetrag', 'netto-betrag', 'summe netto', 'nettosumme', 'gesamt netto', 'rechnungssumme netto', 'rechnungssumme ohne ust.', 'summe ohne mwst', 'zwischensumme', 'nettowert', 'warenwert netto', 'warenwert', 'netto'],
  fr: ['total ht', 'montant ht', 'sous-total', 'sous total', 'total hors taxes', 'montant hors taxes', 'net ht', 'total net ht'],
  nl: ['subtotaal', 'totaal excl. btw', 'totaal exclusief btw', 'exclusief btw', 'excl. btw', 'netto bedrag', 'totaal netto', 'grondslag'],
  pl: ['wartosc netto', 'razem netto', 'suma netto', 'razem', 'netto'],
  es: ['base imponible', 'subtotal', 'importe neto', 'total sin iva'],
  it: ['imponibile', 'totale imponibile', 'subtotale', 'totale netto'],
};

export const taxAmountLabels: LabelsByLanguage = {
  // The sales taxes of federal countries print one line each (Canada: GST/HST with QST or PST; India: CGST with SGST, or IGST).
  en: ['vat amount', 'tax amount', 'total tax', 'total vat', 'sales tax', 'vat total', 'tax', 'vat', 'gst', 'hst', 'qst', 'pst', 'cgst', 'sgst', 'utgst', 'igst'],
  de: ['mwst-betrag', 'mwst.-betrag', 'mwst betrag', 'steuerbetrag', 'umsatzsteuerbetrag', 'umsatzsteuer', 'mehrwertsteuer', 'zzgl. mwst', 'zzgl. ust', 'mwst.', 'mwst', 'ust.', 'ust'],
  fr: ['montant tva', 'montant de la tva', 'total tva', 'tva'],
  nl: ['btw bedrag', 'btw-bedrag', 'totaal btw', 'btw'],
  // PTU: the VAT as Polish till receipts (paragon fiskalny) name it.
  pl: ['kwota vat', 'podatek vat', 'razem vat', 'wartosc vat', 'razem', 'vat', 'ptu'],
  es: ['importe iva', 'cuota iva', 'total iva', 'iva'],
  it: ['totale iva', 'imposta', 'iva'],
};

export const totalAmountLabels: LabelsByLanguage = {
  en: ['grand total', 'total amount', 'invoice total', 'total incl. vat', 'total including vat', 'total incl. tax', 'total including tax', 'total incl. gst', 'total incl gst', 'total including gst', 'total gross', 'gross amount', 'invoice amount', 'total'],
  de: ['gesamtbetrag', 'rechnungsbetrag', 'gesamtsumme', 'endbetrag', 'endsumme', 'bruttobetrag', 'summe brutto', 'rechnungssumme brutto', 'bruttosumme', 'gesamt brutto', 'rechnungssumme', 'gesamtpreis', 'brutto', 'gesamt', 'summe', 'total'],
  fr: ['total ttc', 'montant ttc', 'total facture', 'montant total', 'total a payer', 'total'],
  nl: ['totaal incl. btw', 'totaal inclusief btw', 'totaalbedrag', 'factuurbedrag', 'factuur totaal', 'totaal'],
  pl: ['wartosc brutto', 'razem brutto', 'kwota brutto', 'naleznosc ogolem', 'ogolem', 'suma', 'razem'],
  es: ['importe total', 'total factura', 'total'],
  it: ['totale fattura', 'importo totale', 'totale documento', 'totale'],
  // Vietnamese, as tills print it with or without its accents ("Tổng cộng", "Tong cong").
  vi: ['tong cong', 'tong tien', 'tong thanh toan', 'thanh toan'],
};

export const amountDueLabels: LabelsByLanguage = {
  en: ['amount due', 'balance due', 'total due', 'amount payable', 'total payable', 'please pay', 'to pay', 'due payable', 'payable', 'balance'],
  de: ['zahlbetrag', 'zu zahlen', 'noch zu zahlen', 'offener betrag', 'fälliger betrag', 'restbetrag'],
  fr: ['net a payer', 'montant a payer', 'somme a payer', 'reste a payer', 'montant du', 'solde du', 'a payer'],
  nl: ['te betalen', 'totaal te betalen', 'nog te betalen', 'te voldoen', 'openstaand bedrag'],
  pl: ['do zaplaty', 'pozostalo do zaplaty', 'kwota do zaplaty'],
  es: ['total a pagar', 'importe a pagar'],
  it: ['totale da pagare', 'netto a pagare', 'importo dovuto'],
};

/** A payment already made: then the amount due is not simply the total. */
export const priorPaymentLabels: LabelsByLanguage = {
  en: ['paid', 'prepaid', 'prepayment', 'deposit', 'payment received', 'amount received', 'credit applied', 'partial payment'],
  de: ['bezahlt', 'gezahlt', 'anzahlung', 'vorauszahlung', 'abschlagszahlung', 'teilzahlung', 'erhaltene zahlung'],
  fr: ['paye', 'acompte', 'deja regle', 'montant regle', 'versement recu'],
  nl: ['betaald', 'aanbetaling', 'voldaan', 'vooruitbetaling'],
  pl: ['zaplacono', 'zaliczka', 'wplacono', 'przedplata'],
  es: ['pagado', 'anticipo'],
  it: ['pagato', 'acconto'],
};

export const sellerNameLabels: LabelsByLanguage = {
  en: ['seller', 'vendor', 'supplier', 'sold by', 'issued by', 'bill from', 'service provider', 'payee', 'remit to', 'from'],
  de: ['verkäufer', 'lieferant', 'rechnungsersteller', 'rechnungssteller', 'leistungserbringer', 'absender'],
  fr: ['vendeur', 'fournisseur', 'emetteur', 'prestataire'],
  nl: ['verkoper', 'leverancier'],
  pl: ['sprzedawca', 'wystawca', 'dostawca'],
  es: ['vendedor', 'proveedor', 'emisor'],
  it: ['venditore', 'fornitore', 'cedente', 'cedente/prestatore'],
};

export const buyerNameLabels: LabelsByLanguage = {
  en: ['bill to', 'billed to', 'bill to address', 'billing address', 'invoice to', 'invoiced to', 'sold to', 'customer', 'client', 'buyer', 'recipient', 'guest name', 'customer name', 'subscriber', 'subscriber name', 'to'],
  de: ['rechnungsempfänger', 'käufer', 'käufer/leistungsempfänger', 'leistungsempfänger', 'rechnungsadresse', 'kunde', 'empfänger', 'teilnehmer', 'vertragsinhaber'],
  fr: ['facture a', 'facturé a', 'client', 'destinataire', 'acheteur', 'adresse de facturation', "nom de l'abonné", 'nom du client', 'titulaire du contrat'],
  nl: ['factuuradres', 'klant', 'koper', 'afnemer', 'geadresseerde', 'abonnee', 'naam abonnee', 'aan'],
  pl: ['nabywca', 'odbiorca', 'kupujacy', 'abonent'],
  es: ['facturar a', 'cliente', 'comprador', 'abonado', 'titular del contrato'],
  it: ['cliente', 'destinatario', 'committente', 'cessionario', 'cessionario/committente', 'abbonato', 'intestatario della fattura', 'spett.le', 'spettabile'],
};

export const vatIdLabels: LabelsByLanguage = {
  en: ['vat id', 'vat no', 'vat no.', 'vat number', 'vat reg no', 'vat reg. no.', 'vat registration number', 'vat/tin', 'tax id', 'tin', 'gstin', 'vat'],
  de: ['ust-idnr', 'ust-idnr.', 'ust-id-nr', 'ust.-id.-nr.', 'ust.-id.-nr', 'ust-id', 'ustid', 'ust-identnr', 'ust.-identnr.', 'ust-identnr.', 'umsatzsteuer-id', 'umsatzsteuer-identifikationsnummer', 'ust-ident-nr', 'ust-id.'],
  fr: ['n° tva', 'numero de tva', 'tva intracommunautaire', 'n° de tva intracommunautaire', 'tva intra', 'n° tva intra', 'tva'],
  nl: ['btw-nummer', 'btw nummer', 'btw nr', 'btw-nr', 'btw-id', 'btw'],
  pl: ['nip'],
  es: ['nif', 'cif', 'nif/cif', 'n.i.f.'],
  it: ['partita iva', 'p.iva', 'p. iva'],
};

export const buyerVatIdLabels: LabelsByLanguage = {
  en: ['your vat', 'your vat number', 'customer vat', 'customer vat id', 'buyer vat'],
  de: ['ihre ust-idnr', 'ihre ust-id', 'ust-idnr. des kunden', 'kunden-ust-id'],
  fr: ['tva client', 'votre n° tva', 'votre numero de tva'],
  nl: ['uw btw nummer', 'uw btw-nummer', 'btw-nummer klant'],
  pl: ['nip nabywcy'],
  es: ['nif cliente'],
  it: ['partita iva cliente'],
};

export const ibanLabels: LabelsByLanguage = {
  en: ['iban', 'bank account', 'account'],
  de: ['iban', 'iban-nr', 'iban nr', 'bankverbindung', 'konto'],
  fr: ['iban', 'rib', 'compte'],
  nl: ['iban', 'rekeningnummer', 'rekening'],
  pl: ['iban', 'numer rachunku', 'nr rachunku', 'nr konta', 'rachunek'],
  es: ['iban', 'cuenta'],
  it: ['iban', 'conto'],
};

export const customerNumberLabels: LabelsByLanguage = {
  en: ['customer number', 'customer no', 'customer no.', 'customer id', 'customer #', 'client number', 'client id', 'account number', 'account no', 'account id'],
  de: ['kundennummer', 'kundennr', 'kundennr.', 'kunden-nr', 'kunden-nr.', 'kd-nr', 'kd.-nr.', 'debitorennummer'],
  fr: ['numero client', 'n° client', 'code client', 'id client', 'id.client', 'reference client', 'ref. client', 'numero abonne'],
  nl: ['klantnummer', 'klantnr', 'klantnr.', 'debiteurnummer', 'klant'],
  pl: ['numer klienta', 'nr klienta', 'id klienta'],
  es: ['numero de cliente', 'nº cliente', 'codigo cliente'],
  it: ['codice cliente', 'numero cliente'],
};

export const orderReferenceLabels: LabelsByLanguage = {
  en: ['order number', 'order no', 'order no.', 'order id', 'order #', 'order ref', 'po number', 'po no', 'p.o. number', 'purchase order', 'purchase order number', 'your order', 'order'],
  de: ['bestellnummer', 'bestell-nr', 'bestell-nr.', 'bestellnr', 'auftragsnummer', 'auftrags-nr', 'auftrag-nr', 'ihre bestellung', 'bestellung nr', 'bestellung', 'auftrag'],
  fr: ['numero de commande', 'n° de commande', 'commande n°', 'bon de commande', 'ref. commande', 'votre commande', 'commande'],
  nl: ['ordernummer', 'bestelnummer', 'order nr', 'bestelling', 'order'],
  pl: ['numer zamowienia', 'nr zamowienia', 'zamowienie nr', 'zamowienie'],
  es: ['numero de pedido', 'pedido nº', 'pedido n°', 'pedido'],
  it: ['numero ordine', 'ordine n.', 'ordine n°', 'ordine'],
};

export const buyerReferenceLabels: LabelsByLanguage = {
  en: ['your reference', 'buyer reference', 'customer reference', 'your ref', 'your ref.', 'reference'],
  de: ['ihr zeichen', 'ihre referenz', 'käuferreferenz', 'referenz des käufers', 'leitweg-id', 'ihre zeichen'],
  fr: ['votre reference', 'vos references', 'reference'],
  nl: ['uw referentie', 'uw kenmerk', 'referentie'],
  pl: ['referencja', 'nasz znak', 'wasz znak'],
  es: ['su referencia', 'referencia'],
  it: ['vostro riferimento', 'riferimento'],
};

/** Labels of things invoices print that are not extracted; they keep "Date" out of "Order Date". */
export const invoiceDistractorLabels: LabelsByLanguage = {
  en: ['discount', 'allowance', 'surcharge', 'shipping', 'order date', 'payment date', 'print date', 'check in', 'check out', 'ship to', 'shipping address', 'delivery address', 'deliver to', 'tax number', 'tax rate', 'vat rate', 'tax %', 'unit price', 'page', 'tax point'],
  de: ['abschlag', 'zuschlag', 'rabatt', 'nachlass', 'versandkosten', 'lieferadresse', 'lieferanschrift', 'warenempfänger', 'bestelldatum', 'auftragsdatum', 'auftrag-datum-lief', 'lieferschein-datum', 'vertrags-datum', 'steuernummer', 'steuer-nr', 'steuer-nr.', 'steuernr', 'steuernr.', 'steuersatz', 'mwst-%', 'ust. %', 'usts.', 'einzelpreis', 'seite', 'skonto', 'steuerbasisbetrag', 'lieferschein-nr', 'vertrags-nr', 'bestellung vom', 'gesamtbetrag der zuschläge', 'gesamtbetrag der abschläge', 'zu-/abschlag', 'erhaltene anzahlungen'],
  fr: ['remise', 'rabais', 'frais de port', 'adresse de livraison', 'livre a', 'date de commande', 'taux de tva', 'prix unitaire', 'siret', 'siren', 'rcs', 'date du prelevement'],
  nl: ['korting', 'verzendkosten', 'afleveradres', 'leveradres', 'orderdatum', 'besteldatum', 'btw %', 'prijs per stuk', 'kvk'],
  pl: ['rabat', 'koszt wysylki', 'adres dostawy', 'data zamowienia', 'stawka vat', 'cena jednostkowa', 'regon', 'krs'],
  es: ['fecha de pedido', 'tipo de iva'],
  it: ['data ordine', 'aliquota iva', 'codice fiscale'],
};

export const invoiceKeywords: LabelsByLanguage = {
  en: ['invoice', 'tax invoice', 'credit note', 'bill'],
  de: ['rechnung', 'gutschrift', 'rechnungskorrektur', 'handelsrechnung', 'kostenrechnung', 'warenrechnung'],
  fr: ['facture', 'avoir'],
  nl: ['factuur', 'creditnota'],
  pl: ['faktura', 'faktura vat', 'korekta faktury'],
  es: ['factura'],
  it: ['fattura'],
};

export const receiptKeywords: LabelsByLanguage = {
  en: ['receipt', 'payment receipt', 'cash receipt', 'sales receipt'],
  de: ['quittung', 'kassenbon', 'kassenbeleg', 'zahlungsbeleg', 'kassenzettel'],
  fr: ['recu', 'ticket de caisse', 'quittance'],
  nl: ['kassabon', 'ontvangstbewijs', 'betalingsbewijs'],
  pl: ['paragon', 'paragon fiskalny', 'potwierdzenie zaplaty', 'kwit'],
  es: ['recibo', 'ticket'],
  it: ['ricevuta', 'scontrino'],
};

/**
 * What a till prints and an invoice does not: the cashier, cash tendered and change, the rounding of
 * cash totals, a farewell. Routing evidence for receipts, which often say "Tax Invoice" in their title
 * (a GST/VAT requirement) and never "receipt".
 */
export const tillReceiptKeywords: LabelsByLanguage = {
  en: ['cashier', 'change', 'change due', 'cash tendered', 'tendered', 'rounding', 'rounding adj', 'thank you', 'please come again', 'come again', 'goods sold are not returnable', 'no refund', 'pax',
    // The payment line, item counts, the operator and the exchange terms tills print under the totals.
    'cash', 'item(s)', 'qty(s)', 'total qty', 'item count', 'qty count', 'operator', 'no cash refund', 'not refundable', 'exchange', 'gst summary', 'simplified tax invoice', 'closed bill', 'table no', 'server'],
  de: ['kasse', 'kassierer', 'rückgeld', 'gegeben', 'bar', 'vielen dank für ihren einkauf'],
  fr: ['caisse', 'caissier', 'rendu', 'monnaie rendue', 'merci de votre visite'],
  nl: ['kassa', 'wisselgeld', 'terug', 'bedankt voor uw bezoek'],
  pl: ['kasjer', 'reszta', 'gotowka', 'dziekujemy'],
  es: ['cajero', 'cambio', 'efectivo', 'gracias por su visita'],
  it: ['cassa', 'cassiere', 'resto', 'contanti', 'grazie'],
  vi: ['thu ngan', 'tien mat', 'tien thua', 'cam on'],
};

/** Totals as tills print them: with the tax included, after rounding cash to the smallest coin. */
export const receiptTotalLabels: LabelsByLanguage = {
  en: ['total incl. gst', 'total incl gst', 'total inclusive gst', 'total including gst', 'total sales incl gst', 'total sales', 'total after adj', 'total after adj incl gst', 'total after rounding', 'rounded total', 'total rounded', 'total amt rounded', 'total amount rounded', 'nett total', 'net total incl gst', 'total amount payable', 'total (rm)', 'grand total',
    // The tax qualifier in parentheses or with "of", as most till software prints it.
    'total (inclusive of gst)', 'total inclusive of gst', 'total inclusive of tax', 'total (inclusive of tax)', 'total inclusive tax', 'total sales (inclusive of gst)', 'total sales inclusive of gst', 'total include gst', 'total incl', 'net total'],
};

/** Amounts on a receipt that are not its total: payment, change, rounding, counts and tax summaries. */
export const receiptDistractorLabels: LabelsByLanguage = {
  en: ['cash', 'cash tendered', 'tendered', 'change', 'change due', 'change amt', 'rounding', 'rounding adj', 'rounding adjustment', 'total qty', 'total quantity', 'total items', 'item total', 'item count', 'items', 'qty', 'total discount', 'total savings', 'you saved', 'gst summary', 'tax summary', 'payment', 'paid', 'credit card', 'visa', 'mastercard', 'points'],
  de: ['gegeben', 'bar', 'rückgeld', 'zurück', 'ec-karte', 'karte'],
  fr: ['espèces', 'rendu', 'monnaie', 'carte bancaire'],
  nl: ['contant', 'wisselgeld', 'terug', 'pin'],
  pl: ['gotowka', 'reszta', 'karta'],
  es: ['efectivo', 'cambio', 'tarjeta'],
  it: ['contanti', 'resto', 'carta'],
};

/** Net amounts as tills print them, with the tax excluded. */
export const receiptNetAmountLabels: LabelsByLanguage = {
  en: ['total excl. gst', 'total excl gst', 'total exclusive gst', 'total excluding gst', 'amount excl gst', 'total (excluding gst)', 'total sales (excluding gst)', 'total sales excluding gst', 'total exclude gst', 'total excl'],
};

/** Tax lines as tills print them. */
export const receiptTaxAmountLabels: LabelsByLanguage = {
  en: ['gst payable', 'total gst', 'gst amount', 'gst amt'],
};

export const receiptNumberLabels: LabelsByLanguage = {
  en: ['receipt number', 'receipt no', 'receipt #', 'receipt id', 'booking id', 'booking number', 'transaction id', 'transaction no', 'transaction number', 'order id'],
  de: ['belegnummer', 'beleg-nr', 'bonnummer', 'bon-nr', 'bon nr', 'quittungsnummer', 'transaktionsnummer'],
  fr: ['numero de recu', 'recu n°', 'ticket n°', 'numero de ticket', 'numero de transaction'],
  nl: ['bonnummer', 'bon nr', 'transactienummer', 'kassabon nr'],
  pl: ['nr paragonu', 'paragon nr', 'numer paragonu', 'nr transakcji'],
  es: ['numero de recibo', 'recibo n°', 'ticket n°'],
  it: ['numero ricevuta', 'scontrino n.', 'numero scontrino'],
};

/** Weak seller hints: the account holder or payee is usually, not always, the seller. */
export const sellerNameWeakLabels: LabelsByLanguage = {
  en: ['account holder', 'account name', 'payable to', 'pay to', 'in favor of', 'in favour of', 'beneficiary'],
  de: ['kontoinhaber', 'empfänger der zahlung', 'zahlungsempfänger'],
  fr: ['titulaire du compte', 'beneficiaire', "a l'ordre de"],
  nl: ['rekeninghouder', 'ten name van', 'begunstigde'],
  pl: ['wlasciciel rachunku', 'odbiorca przelewu'],
  es: ['titular de la cuenta', 'beneficiario'],
  it: ['intestatario', 'beneficiario'],
};

/** A bare "#" before a number, as US invoice templates print the invoice number under the title. */
export const documentNumberWeakLabels: LabelsByLanguage = {
  en: ['#', 'no.', 'ref'],
};
