/**
 * Phrases by which a system prompt marks something as secret, in many languages, written for
 * Warden (not taken from any list). Matched on folded text (lower case, accents off: see
 * text.ts fold()), so they are written folded here. A sentence holding one of them makes the
 * value-like tokens in it, and in the sentence that follows it, protected values.
 */
export const SECRET_PHRASES: readonly string[] = [
  // English
  'never reveal', 'do not reveal', "don't reveal", 'must not reveal', 'never share', 'do not share', "don't share",
  'do not disclose', 'never disclose', "don't disclose", 'do not tell', 'never tell', 'never mention', 'do not mention',
  'keep secret', 'keep it secret', 'keep this secret', 'secret', 'confidential', 'password', 'passphrase', 'passcode',
  'pin code', 'pin is', 'access code', 'api key', 'private key', 'token', 'internal only', 'internal use', 'internal url',
  'account number', 'not to be shared', 'for staff only',
  // German
  'niemals verraten', 'nicht verraten', 'nie verraten', 'nicht weitergeben', 'niemals weitergeben', 'nicht preisgeben',
  'niemals preisgeben', 'nicht nennen', 'geheim', 'passwort', 'kennwort', 'zugangscode', 'vertraulich', 'kontonummer', 'nur intern',
  // French
  'ne jamais reveler', 'ne revele jamais', 'ne revelez jamais', 'ne pas reveler', 'ne pas partager', 'ne partage jamais',
  'ne partagez jamais', 'ne pas divulguer', 'ne divulgue jamais', 'secret', 'mot de passe', 'confidentiel', "code d'acces",
  'numero de compte', 'usage interne',
  // Spanish
  'nunca reveles', 'no reveles', 'no revelar', 'nunca compartas', 'no compartas', 'no compartir', 'no divulgues', 'secreto',
  'secreta', 'contrasena', 'clave', 'confidencial', 'codigo de acceso', 'numero de cuenta', 'uso interno',
  // Italian
  'non rivelare', 'non condividere', 'non divulgare', 'mai rivelare', 'segreto', 'segreta', 'riservato', 'riservata',
  'codice di accesso', 'numero di conto', 'uso interno',
  // Portuguese
  'nunca revele', 'nao revele', 'nao revelar', 'nunca compartilhe', 'nao compartilhe', 'nao divulgue', 'segredo', 'senha',
  'sigiloso', 'codigo de acesso', 'numero da conta',
  // Dutch
  'nooit onthullen', 'niet onthullen', 'nooit delen', 'niet delen', 'niet doorgeven', 'geheim', 'wachtwoord', 'vertrouwelijk',
  'toegangscode', 'rekeningnummer',
  // Polish
  'nigdy nie ujawniaj', 'nie ujawniaj', 'nie udostepniaj', 'nie podawaj', 'tajne', 'tajny', 'haslo', 'poufne', 'kod dostepu',
  'numer konta',
  // Turkish
  'asla aciklama', 'paylasma', 'asla paylasma', 'gizli', 'sifre', 'parola', 'erisim kodu', 'hesap numarasi',
  // Russian, Ukrainian
  'никогда не раскрывай', 'не раскрывай', 'не сообщай', 'не разглашай', 'никому не говори', 'секрет', 'секретн', 'пароль',
  'конфиденциальн', 'код доступа', 'номер счета', 'не розголошуй', 'таємн',
  // Chinese
  '不要透露', '绝不透露', '不得透露', '不要泄露', '保密', '密码', '机密', '口令', '访问码', '账号',
  // Japanese
  '絶対に教え', '教えないで', '開示しない', '秘密', 'パスワード', '機密', '暗証番号', 'アクセスコード',
  // Korean
  '절대 공개하지', '공개하지 마', '알려주지 마', '비밀', '비밀번호', '암호', '기밀',
  // Arabic, Hindi
  'لا تكشف', 'لا تفصح', 'سري', 'كلمة المرور', 'कभी मत बताना', 'मत बताना', 'गुप्त', 'पासवर्ड',
];

/**
 * The phrases above that name a kind of credential rather than say "keep it secret": a sentence
 * holding only one of these ("Reset your password at https://...") protects only a value given
 * after a copula, `:` or `=`, or quoted ("The password is X"), not every code-like token in it.
 */
export const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'password', 'passphrase', 'passcode', 'pin code', 'pin is', 'access code', 'api key', 'private key', 'token', 'account number',
  'passwort', 'kennwort', 'zugangscode', 'kontonummer', 'mot de passe', "code d'acces", 'numero de compte', 'contrasena', 'clave',
  'codigo de acceso', 'numero de cuenta', 'codice di accesso', 'numero di conto', 'senha', 'codigo de acesso', 'numero da conta',
  'wachtwoord', 'toegangscode', 'rekeningnummer', 'haslo', 'kod dostepu', 'numer konta', 'sifre', 'parola', 'erisim kodu',
  'hesap numarasi', 'пароль', 'код доступа', 'номер счета', '密码', '口令', '访问码', '账号', 'パスワード', '暗証番号',
  'アクセスコード', '비밀번호', '암호', 'كلمة المرور', 'पासवर्ड',
]);

/** Words that follow a secret phrase but are not values ("the password is never shared"). */
export const NOT_VALUES: ReadonlySet<string> = new Set([
  'never', 'not', 'the', 'this', 'that', 'these', 'those', 'anyone', 'nobody', 'users', 'user', 'customers', 'customer', 'them',
  'secret', 'password', 'confidential', 'internal', 'only', 'under', 'any', 'circumstances', 'always', 'shared', 'share',
  'reveal', 'revealed', 'disclose', 'mention', 'staff', 'please', 'follows', 'following', 'below', 'above', 'given',
  'nie', 'niemals', 'nicht', 'jamais', 'nunca', 'mai', 'nooit', 'nigdy', 'asla', 'sein', 'être', 'ser', 'essere',
]);
