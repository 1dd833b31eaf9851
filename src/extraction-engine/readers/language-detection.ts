// Cheap dominant-language detection: count words that are frequent in one language and rare in the
// others (function words, plus the vocabulary every invoice prints: invoice, amount, date, VAT...).
// Invoices are short and label-heavy, so the invoice vocabulary matters as much as the stop words.

const markerWords: Record<string, string> = {
  en: 'the and of to for with from this that is are be by on at your our you we will please invoice bill total amount due date number payment tax subtotal customer order quantity price description paid balance account thank',
  de: 'der die das und ist nicht mit von für auf den dem des ein eine einer zu im bei sie wir ihr ihre unser bitte rechnung datum betrag gesamt summe netto brutto mwst ust steuer zahlbar bis kunde kundennummer lieferung menge preis bestellung zahlung gutschrift vielen dank überweisen',
  fr: 'le la les et des du de un une est pour sur avec par dans au aux vous nous votre notre facture date montant total tva ht ttc prix quantité client commande paiement échéance règlement désignation merci remise',
  nl: 'de het een en van is op te voor met aan bij ons uw u wij zijn niet dit deze factuur datum bedrag totaal btw excl incl prijs aantal klant bestelling betaling vervaldatum omschrijving betaald graag',
  pl: 'i w z na do nie się jest od za po oraz dla przez faktura data kwota razem netto brutto vat stawka sprzedawca nabywca nabywcy ilość cena wartość płatność termin zapłaty sposób nazwa towaru usługi',
};

/** For each marker word, the positions (in markerWords' order) of the languages it marks. */
const languages = Object.keys(markerWords);
const languagesOfMarker = new Map<string, number[]>();
languages.forEach((language, position) => {
  for (const word of new Set(markerWords[language]!.split(' '))) languagesOfMarker.set(word, [...(languagesOfMarker.get(word) ?? []), position]);
});

/** Markers needed before guessing at all, and the lead the winner needs over the runner-up. */
const minimumMarkers = 3;
const minimumLead = 1.25;
const maximumWordsCounted = 20_000;
const WORD = /\p{L}+/gu;

/** ISO 639-1 code of the dominant language, or undefined when the text is too short or too mixed to tell. */
export function detectLanguage(text: string): string | undefined {
  // One look-up per word (not one per word and language), without an array of every word of the document.
  const counts = languages.map(() => 0);
  const lowerCase = text.toLowerCase();
  WORD.lastIndex = 0;
  let match: RegExpExecArray | null;
  for (let words = 0; words < maximumWordsCounted && (match = WORD.exec(lowerCase)) !== null; words += 1) {
    for (const position of languagesOfMarker.get(match[0]) ?? []) counts[position]! += 1;
  }
  WORD.lastIndex = 0;
  const scores = languages.map((language, position) => ({ language, score: counts[position]! }));
  scores.sort((first, second) => second.score - first.score);
  const [best, runnerUp] = scores;
  if (!best || best.score < minimumMarkers) return undefined;
  if (runnerUp && best.score < runnerUp.score * minimumLead) return undefined;
  return best.language;
}
