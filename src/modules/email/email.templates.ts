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

export const templates = {
  verifyEmail: (lang: LanguageCode, d: VerifyEmailData, publicUrl: string): Rendered => layout(verify[lang](d), publicUrl),
  accountClaim: (lang: LanguageCode, d: AccountClaimData, publicUrl: string): Rendered => layout(claim[lang](d), publicUrl),
  passwordReset: (lang: LanguageCode, d: PasswordResetData, publicUrl: string): Rendered => layout(reset[lang](d), publicUrl),
  passwordChanged: (lang: LanguageCode, d: PasswordChangedData, publicUrl: string): Rendered => layout(changed[lang](d), publicUrl),
};
