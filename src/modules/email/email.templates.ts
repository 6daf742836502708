import type { LanguageCode } from '../users/users.schemas.js';
import { layout, PRODUCT_NAME, type Rendered } from './email.layout.js';

/**
 * Every message the service sends, in each language. A template takes only what it shows; links are
 * built by the caller from PUBLIC_URL. Kept as data per language so a translation is one place.
 */

export interface PasswordResetData {
  name: string;
  url: string;
  minutes: number;
}

export interface PasswordChangedData {
  name: string;
}

const reset: Record<LanguageCode, (d: PasswordResetData) => Parameters<typeof layout>[0]> = {
  en: (d) => ({
    subject: `Reset your ${PRODUCT_NAME} password`,
    greeting: `Hello ${d.name},`,
    paragraphs: [
      `Someone (we hope you) asked to reset the password of your ${PRODUCT_NAME} account.`,
      `The link works once and for ${d.minutes} minutes. If you did not ask for it, ignore this message: your password stays as it is.`,
    ],
    action: { label: 'Choose a new password', url: d.url },
  }),
  ru: (d) => ({
    subject: `Сброс пароля ${PRODUCT_NAME}`,
    greeting: `Здравствуйте, ${d.name}!`,
    paragraphs: [
      `Кто-то (надеемся, вы) запросил сброс пароля вашей учётной записи ${PRODUCT_NAME}.`,
      `Ссылка действует один раз и ${d.minutes} минут. Если вы не запрашивали сброс, просто проигнорируйте это письмо: пароль останется прежним.`,
    ],
    action: { label: 'Задать новый пароль', url: d.url },
  }),
};

const changed: Record<LanguageCode, (d: PasswordChangedData) => Parameters<typeof layout>[0]> = {
  en: (d) => ({
    subject: `Your ${PRODUCT_NAME} password was changed`,
    greeting: `Hello ${d.name},`,
    paragraphs: [
      'The password of your account was just reset through an emailed link, and every session was signed out.',
      'If this was not you, reset your password again at once and tell your administrator.',
    ],
  }),
  ru: (d) => ({
    subject: `Пароль ${PRODUCT_NAME} изменён`,
    greeting: `Здравствуйте, ${d.name}!`,
    paragraphs: [
      'Пароль вашей учётной записи только что сброшен по ссылке из письма, все сеансы завершены.',
      'Если это были не вы, сразу сбросьте пароль ещё раз и сообщите администратору.',
    ],
  }),
};

export interface AccountClaimData {
  name: string;
  organization: string;
  url: string;
  days: number;
}

const claim: Record<LanguageCode, (d: AccountClaimData) => Parameters<typeof layout>[0]> = {
  en: (d) => ({
    subject: `Claim your ${PRODUCT_NAME} account`,
    greeting: `Hello ${d.name},`,
    paragraphs: [
      `Your team moved “${d.organization}” to ${PRODUCT_NAME}, and your work came along under this address.`,
      `Set a password to sign in. The link works once and for ${d.days} days; after that, ask for a password reset on the sign-in page.`,
    ],
    action: { label: 'Set your password', url: d.url },
  }),
  ru: (d) => ({
    subject: `Учётная запись ${PRODUCT_NAME} ждёт вас`,
    greeting: `Здравствуйте, ${d.name}!`,
    paragraphs: [
      `Ваша команда перенесла «${d.organization}» в ${PRODUCT_NAME}, и ваша работа перенесена вместе с этим адресом.`,
      `Задайте пароль, чтобы войти. Ссылка действует один раз и ${d.days} дней; потом запросите сброс пароля на странице входа.`,
    ],
    action: { label: 'Задать пароль', url: d.url },
  }),
};

export interface VerifyEmailData {
  name: string;
  url: string;
  days: number;
}

const verify: Record<LanguageCode, (d: VerifyEmailData) => Parameters<typeof layout>[0]> = {
  en: (d) => ({
    subject: `Confirm your email address for ${PRODUCT_NAME}`,
    greeting: `Hello ${d.name},`,
    paragraphs: [
      `Please confirm that this address is yours. Until you do, ${PRODUCT_NAME} sends it no notification emails.`,
      `The link works for ${d.days} days. If you did not sign up, ignore this message.`,
    ],
    action: { label: 'Confirm the address', url: d.url },
  }),
  ru: (d) => ({
    subject: `Подтвердите адрес почты для ${PRODUCT_NAME}`,
    greeting: `Здравствуйте, ${d.name}!`,
    paragraphs: [
      `Подтвердите, пожалуйста, что это ваш адрес. До тех пор ${PRODUCT_NAME} не присылает на него писем с уведомлениями.`,
      `Ссылка действует ${d.days} дней. Если вы не регистрировались, просто проигнорируйте это письмо.`,
    ],
    action: { label: 'Подтвердить адрес', url: d.url },
  }),
};

export interface SpaceInvitationData {
  inviter: string;
  space: string;
  organization: string;
  role: 'editor' | 'member' | 'reader';
  url: string;
  days: number;
}

const ROLE_WORDS: Record<LanguageCode, Record<SpaceInvitationData['role'], string>> = {
  en: { editor: 'an editor', member: 'a member', reader: 'a reader' },
  ru: { editor: 'редактор', member: 'участник', reader: 'читатель' },
};

const invitation: Record<LanguageCode, (d: SpaceInvitationData) => Parameters<typeof layout>[0]> = {
  en: (d) => ({
    subject: `${d.inviter} invited you to “${d.space}” in ${PRODUCT_NAME}`,
    greeting: 'Hello,',
    paragraphs: [
      `${d.inviter} invited you to the space “${d.space}” of “${d.organization}” in ${PRODUCT_NAME}, as ${ROLE_WORDS.en[d.role]}.`,
      `Accept to join: sign in with this address, or create an account in a minute. The link works for ${d.days} days; if you do not know why you got it, ignore this message.`,
    ],
    action: { label: 'Accept the invitation', url: d.url },
  }),
  ru: (d) => ({
    subject: `${d.inviter} приглашает вас в «${d.space}» в ${PRODUCT_NAME}`,
    greeting: 'Здравствуйте!',
    paragraphs: [
      `${d.inviter} приглашает вас в пространство «${d.space}» организации «${d.organization}» в ${PRODUCT_NAME}, роль: ${ROLE_WORDS.ru[d.role]}.`,
      `Чтобы присоединиться, войдите с этим адресом или создайте учётную запись — это минута. Ссылка действует ${d.days} дней; если вы не ждали приглашения, просто проигнорируйте это письмо.`,
    ],
    action: { label: 'Принять приглашение', url: d.url },
  }),
};

export interface EmailChangedData {
  name: string;
  newEmail: string;
}

const emailChanged: Record<LanguageCode, (d: EmailChangedData) => Parameters<typeof layout>[0]> = {
  en: (d) => ({
    subject: `The email address of your ${PRODUCT_NAME} account was changed`,
    greeting: `Hello ${d.name},`,
    paragraphs: [
      `The email address of your ${PRODUCT_NAME} account was just changed from this one to ${d.newEmail}. Messages now go there, and you sign in with it.`,
      'If this was not you, tell your administrator at once: someone may have your password.',
    ],
  }),
  ru: (d) => ({
    subject: `Адрес почты учётной записи ${PRODUCT_NAME} изменён`,
    greeting: `Здравствуйте, ${d.name}!`,
    paragraphs: [
      `Адрес почты вашей учётной записи ${PRODUCT_NAME} только что изменён с этого на ${d.newEmail}. Письма теперь приходят туда, и входить нужно с ним.`,
      'Если это были не вы, сразу сообщите администратору: возможно, кто-то знает ваш пароль.',
    ],
  }),
};

export const templates = {
  spaceInvitation: (lang: LanguageCode, d: SpaceInvitationData, publicUrl: string): Rendered => layout(invitation[lang](d), publicUrl),
  emailChanged: (lang: LanguageCode, d: EmailChangedData, publicUrl: string): Rendered => layout(emailChanged[lang](d), publicUrl),
  verifyEmail: (lang: LanguageCode, d: VerifyEmailData, publicUrl: string): Rendered => layout(verify[lang](d), publicUrl),
  accountClaim: (lang: LanguageCode, d: AccountClaimData, publicUrl: string): Rendered => layout(claim[lang](d), publicUrl),
  passwordReset: (lang: LanguageCode, d: PasswordResetData, publicUrl: string): Rendered => layout(reset[lang](d), publicUrl),
  passwordChanged: (lang: LanguageCode, d: PasswordChangedData, publicUrl: string): Rendered => layout(changed[lang](d), publicUrl),
};
