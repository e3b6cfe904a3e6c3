import { z } from 'zod';

// Who may call the emulated instance: users, their tokens and the scopes each token grants.

export const SCOPES = ['externalapi:read', 'externalapi:write'] as const;
export const ScopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof ScopeSchema>;

export const TokenGrantSchema = z.object({
  token: z.string().min(1),
  scopes: z.array(ScopeSchema),
});

export const EmulatorUserSchema = z.object({
  id: z.number().int().positive(),
  username: z.string().min(1),
  tokens: z.array(TokenGrantSchema),
});
export type EmulatorUser = z.output<typeof EmulatorUserSchema>;

export const DEFAULT_USERS: z.input<typeof EmulatorUserSchema>[] = [
  {
    id: 1,
    username: 'admin',
    tokens: [
      { token: 'sgp_emulator_admin_token', scopes: ['externalapi:read', 'externalapi:write'] },
      // The read-only token belongs to admin so scope tests can read admin's conversations.
      { token: 'sgp_emulator_readonly_token', scopes: ['externalapi:read'] },
    ],
  },
  {
    id: 2,
    username: 'alice',
    tokens: [{ token: 'sgp_emulator_alice_token', scopes: ['externalapi:read', 'externalapi:write'] }],
  },
];
